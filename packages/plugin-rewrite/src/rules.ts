/**
 * The rules of a `rewrite` line: what each matches in the query, how it changes the query, and
 * which response rules it leaves for the reply (CoreDNS's plugin/rewrite name.go, type.go,
 * class.go, ttl.go, rcode.go, edns0.go and cname_target.go).
 */
import type { EdnsOption, Request } from '@foghorn/core';
import type { QueryEdit } from './query.js';
import {
  NameResponseRule,
  RcodeResponseRule,
  RemapRewriter,
  RemoveOptionRule,
  RestoreOptionRule,
  substituteGroups,
  SuffixRewriter,
  TtlResponseRule,
  ValueResponseRule,
} from './response.js';
import type { ResponseRule } from './response.js';
import { parseIp, to4 } from '@foghorn/core/wire';

/** After a matching rule: `stop` ends the rule list, `continue` goes on with the next rule. */
export type Mode = 'stop' | 'continue';

/** How a rule's FROM is compared with the question name. */
export type MatchType = 'exact' | 'prefix' | 'suffix' | 'substring' | 'regex';

/** One rule. `rewrite` returns the response rules it leaves, or null when it did not apply. */
export interface Rule {
  readonly mode: Mode;
  rewrite(query: QueryEdit): ResponseRule[] | null;
}

/** A name matcher shared by the ttl and rcode rules: they match, they change nothing in the query. */
export class NameMatcher {
  constructor(
    readonly type: MatchType,
    /** Normalised name (lower case, trailing dot) or a regex. */
    readonly from: string | RegExp,
  ) {}

  matches(name: string): boolean {
    const from = this.from;
    if (typeof from !== 'string') return from.test(name);
    switch (this.type) {
      case 'exact':
        return name === from;
      case 'prefix':
        return name.startsWith(from);
      case 'suffix':
        return name.endsWith(from);
      default:
        return name.includes(from);
    }
  }
}

/** `name`: rewrites the question name; `answer` options and `auto` decide the reply's names. */
export class NameRule implements Rule {
  constructor(
    readonly mode: Mode,
    readonly type: MatchType,
    readonly from: string | RegExp,
    readonly to: string,
    /** Revert the rewrite in the reply by remapping the new name to the old one. */
    readonly auto: boolean,
    /** Response rules given with `answer name|value`, and the suffix swap of `suffix ... answer auto`. */
    readonly answers: readonly ResponseRule[],
  ) {}

  rewrite(query: QueryEdit): ResponseRule[] | null {
    // CoreDNS matches the lower-cased name (`request.Name()`).
    const name = query.lowerName();
    const rewritten = replaceName(this.type, this.from, this.to, name);
    if (rewritten === undefined) return null;
    query.name = rewritten;
    if (!this.auto) return this.answers as ResponseRule[];
    const remap = new RemapRewriter(rewritten, name);
    return [new NameResponseRule(remap), new ValueResponseRule(remap), ...this.answers];
  }
}

/** `name` with FROM replaced by TO the way TYPE says, or undefined when FROM does not match. */
export function replaceName(type: MatchType, from: string | RegExp, to: string, name: string): string | undefined {
  if (typeof from !== 'string') {
    const match = from.exec(name);
    return match === null ? undefined : substituteGroups(to, match);
  }
  switch (type) {
    case 'exact':
      return name === from ? to : undefined;
    case 'prefix':
      return name.startsWith(from) ? to + name.slice(from.length) : undefined;
    case 'suffix':
      return name.endsWith(from) ? name.slice(0, name.length - from.length) + to : undefined;
    default:
      return name.includes(from) ? name.replaceAll(from, to) : undefined;
  }
}

/** A suffix rule's `answer auto`: swap the suffixes back, names and values. */
export function suffixAutoRules(from: string, to: string): ResponseRule[] {
  const swap = new SuffixRewriter(to, from);
  return [new NameResponseRule(swap), new ValueResponseRule(swap)];
}

/** `type FROM TO`. */
export class TypeRule implements Rule {
  constructor(
    readonly mode: Mode,
    readonly from: number,
    readonly to: number,
  ) {}
  rewrite(query: QueryEdit): ResponseRule[] | null {
    if (query.qtype !== this.from) return null;
    query.qtype = this.to;
    return [];
  }
}

/** `class FROM TO`. */
export class ClassRule implements Rule {
  constructor(
    readonly mode: Mode,
    readonly from: number,
    readonly to: number,
  ) {}
  rewrite(query: QueryEdit): ResponseRule[] | null {
    if (query.qclass !== this.from) return null;
    query.qclass = this.to;
    return [];
  }
}

/** `ttl [TYPE] NAME SECONDS|MIN-MAX`: clamps the reply's TTLs for matching names. */
export class TtlRule implements Rule {
  private readonly response: TtlResponseRule;
  constructor(
    readonly mode: Mode,
    readonly matcher: NameMatcher,
    min: number,
    max: number,
  ) {
    this.response = new TtlResponseRule(min, max);
  }
  rewrite(query: QueryEdit): ResponseRule[] | null {
    return this.matcher.matches(query.lowerName()) ? [this.response] : null;
  }
}

/** `rcode [TYPE] NAME FROM TO`: replaces the reply's rcode for matching names. */
export class RcodeRule implements Rule {
  private readonly response: RcodeResponseRule;
  constructor(
    readonly mode: Mode,
    readonly matcher: NameMatcher,
    from: number,
    to: number,
  ) {
    this.response = new RcodeResponseRule(from, to);
  }
  rewrite(query: QueryEdit): ResponseRule[] | null {
    return this.matcher.matches(query.lowerName()) ? [this.response] : null;
  }
}

export type EdnsAction = 'set' | 'append' | 'replace' | 'unset';

/** EDNS0 option codes the `nsid` and `subnet` rules edit (RFC 5001, RFC 7871). */
export const EDNS0_NSID = 3;
export const EDNS0_SUBNET = 8;

/**
 * Where an option's data comes from: fixed bytes, or a variable read per query. Returns undefined
 * when the variable has no value for this query (the rule then does not apply, as in CoreDNS).
 */
export type OptionData = Buffer | ((req: Request, query: QueryEdit) => Buffer | undefined);

/**
 * `edns0 local|nsid ACTION ...`: CoreDNS's edns0LocalRule, edns0VariableRule and edns0NsidRule.
 * Like CoreDNS, the query gets an OPT record (4096, no DO) when it had none, even when the rule
 * then does not apply.
 */
export class OptionRule implements Rule {
  constructor(
    readonly mode: Mode,
    readonly action: EdnsAction,
    readonly code: number,
    readonly data: OptionData,
    readonly revert: boolean,
    /** A variable rule leaves an existing option alone on append; a fixed one appends another. */
    private readonly variable: boolean,
  ) {}

  rewrite(query: QueryEdit): ResponseRule[] | null {
    const opt = query.editOpt();
    if (this.action === 'unset') {
      opt.options = opt.options.filter((o) => o.code !== this.code);
      return [];
    }
    const data = typeof this.data === 'function' ? this.data(query.original, query) : this.data;
    if (data === undefined) return null;
    const at = opt.options.findIndex((o) => o.code === this.code);
    if (at >= 0) {
      if (this.action === 'replace' || this.action === 'set') {
        const original = opt.options[at]!;
        opt.options[at] = { code: this.code, data };
        return this.revert ? [new RestoreOptionRule(original)] : [];
      }
      if (this.variable) return null;
    }
    if (this.action === 'append' || this.action === 'set') {
      opt.options.push({ code: this.code, data });
      return this.revert ? [new RemoveOptionRule(this.code)] : [];
    }
    return null;
  }
}

/** `edns0 subnet ACTION V4BITS V6BITS`: the client's own subnet as an ECS option (RFC 7871 §6). */
export class SubnetRule implements Rule {
  constructor(
    readonly mode: Mode,
    readonly action: EdnsAction,
    readonly v4Bits: number,
    readonly v6Bits: number,
    readonly revert: boolean,
  ) {}

  rewrite(query: QueryEdit): ResponseRule[] | null {
    const opt = query.editOpt();
    if (this.action === 'unset') {
      opt.options = opt.options.filter((o) => o.code !== EDNS0_SUBNET);
      return [];
    }
    const data = this.ecs(query.original.remoteAddress);
    const at = opt.options.findIndex((o) => o.code === EDNS0_SUBNET);
    if (at >= 0) {
      if ((this.action !== 'replace' && this.action !== 'set') || data === undefined) return null;
      const original = opt.options[at]!;
      opt.options[at] = { code: EDNS0_SUBNET, data };
      return this.revert ? [new RestoreOptionRule(original)] : [];
    }
    if ((this.action === 'append' || this.action === 'set') && data !== undefined) {
      opt.options.push({ code: EDNS0_SUBNET, data });
      return this.revert ? [new RemoveOptionRule(EDNS0_SUBNET)] : [];
    }
    return null;
  }

  /** FAMILY, SOURCE PREFIX-LENGTH, SCOPE 0 and the masked address cut to whole octets. */
  private ecs(client: string): Buffer | undefined {
    const address = clientAddressBytes(client);
    if (address === undefined) return undefined;
    const family = address.length === 4 ? 1 : 2;
    const bits = family === 1 ? this.v4Bits : this.v6Bits;
    const octets = Math.ceil(bits / 8);
    const data = Buffer.alloc(4 + octets);
    data.writeUInt16BE(family, 0);
    data[2] = bits;
    for (let i = 0; i < octets; i++) {
      const keep = Math.min(8, bits - i * 8);
      data[4 + i] = address[i]! & ((0xff << (8 - keep)) & 0xff);
    }
    return data;
  }
}

/**
 * The client address as 4 bytes (IPv4, also when written as IPv4-mapped IPv6, as Go's `To4`
 * makes it) or 16 bytes, or undefined when it cannot be read. A zone (`%eth0`) is cut off.
 */
export function clientAddressBytes(text: string): Buffer | undefined {
  const percent = text.indexOf('%');
  const ip = parseIp(percent >= 0 ? text.slice(0, percent) : text);
  return ip === null ? undefined : Buffer.from(to4(ip));
}

/** The `EdnsOption` type, re-exported for the data functions of variables. */
export type { EdnsOption };

/**
 * `cname [TYPE] FROM TO`: in the reply, the first CNAME whose target matches is pointed at the
 * new target, and the records after it are replaced by a lookup of the new target. It is its own
 * response rule: the reverter runs it last, since it needs that lookup.
 */
export class CnameRule implements Rule, ResponseRule {
  constructor(
    readonly mode: Mode,
    readonly type: MatchType,
    readonly from: string | RegExp,
    readonly to: string,
  ) {}

  /** CoreDNS applies a cname rule to every query; the work happens in the reply. */
  rewrite(): ResponseRule[] {
    return [this];
  }

  newTarget(target: string): string | undefined {
    return replaceName(this.type, this.from, this.to, target);
  }
}
