/**
 * Response rules: what a matched rule does to the reply on its way back to the client (CoreDNS's
 * `ResponseRule`s in plugin/rewrite/reverter.go, name.go, ttl.go, rcode.go and edns0.go).
 *
 * Names here are in presentation form with a trailing dot, as CoreDNS compares them; dns-packet
 * gives record names without it, so the reverter adds it before a rule sees a name.
 */
import type { Answer, Packet } from 'dns-packet';
import type { EdnsOption } from '@foghorn/core';
import { fqdn } from '@foghorn/core/wire';

/** Maps one name to another, or returns it unchanged. */
export interface StringRewriter {
  rewrite(name: string): string;
}

/** `{N}` in `template` replaced by group N of `match`, in group order, as CoreDNS substitutes. */
export function substituteGroups(template: string, match: RegExpExecArray): string {
  let s = template;
  for (let i = 0; i < match.length; i++) s = s.replaceAll(`{${i}}`, match[i] ?? '');
  return s;
}

/** A regex and its replacement with `{N}` groups; a name the regex does not match is kept. */
export class RegexRewriter implements StringRewriter {
  constructor(
    readonly pattern: RegExp,
    readonly replacement: string,
  ) {}
  rewrite(name: string): string {
    const match = this.pattern.exec(name);
    return match === null ? name : substituteGroups(this.replacement, match);
  }
}

/** Maps a name and its subdomains: `auto` reverting an exact, prefix, substring or regex rewrite. */
export class RemapRewriter implements StringRewriter {
  constructor(
    readonly from: string,
    readonly to: string,
  ) {}
  rewrite(name: string): string {
    if (name === this.from) return this.to;
    const cut = name.length - this.from.length;
    if (cut > 0 && name.charCodeAt(cut - 1) === 0x2e && name.endsWith(this.from)) return name.slice(0, cut) + this.to;
    return name;
  }
}

/** Swaps a suffix: `auto` reverting a suffix rewrite. */
export class SuffixRewriter implements StringRewriter {
  constructor(
    readonly suffix: string,
    readonly replacement: string,
  ) {}
  rewrite(name: string): string {
    return name.endsWith(this.suffix) ? name.slice(0, name.length - this.suffix.length) + this.replacement : name;
  }
}

/** One rule applied to the reply. At least one of the methods is defined. */
export interface ResponseRule {
  /** Rewrites one record in place (records of every section, OPT excluded). */
  record?(rr: Answer): void;
  /** Rewrites the reply header once (the rcode). */
  message?(msg: Packet): void;
  /** Rewrites the options of the reply's OPT record once. */
  options?(options: EdnsOption[]): void;
  /** A cname rule: the new target of a CNAME target, or undefined when it keeps its target. */
  newTarget?(target: string): string | undefined;
}

/** `answer name`: the owner name of every record. */
export class NameResponseRule implements ResponseRule {
  constructor(readonly rewriter: StringRewriter) {}
  record(rr: Answer): void {
    const name = fqdn(rr.name);
    const rewritten = this.rewriter.rewrite(name);
    if (rewritten !== name) rr.name = rewritten;
  }
}

/** The record types whose name-valued field `answer value` rewrites, and how to reach it. */
const valueFields: Record<string, { get(data: never): unknown; set(rr: Answer, value: string): void }> = {
  CNAME: { get: (data: string) => data, set: (rr, value) => ((rr as { data: string }).data = value) },
  DNAME: { get: (data: string) => data, set: (rr, value) => ((rr as { data: string }).data = value) },
  NS: { get: (data: string) => data, set: (rr, value) => ((rr as { data: string }).data = value) },
  PTR: { get: (data: string) => data, set: (rr, value) => ((rr as { data: string }).data = value) },
  SRV: { get: (data: { target: string }) => data.target, set: (rr, value) => ((rr as { data: object }).data = { ...(rr as { data: object }).data, target: value }) },
  MX: { get: (data: { exchange: string }) => data.exchange, set: (rr, value) => ((rr as { data: object }).data = { ...(rr as { data: object }).data, exchange: value }) },
  SOA: { get: (data: { mname: string }) => data.mname, set: (rr, value) => ((rr as { data: object }).data = { ...(rr as { data: object }).data, mname: value }) },
  NAPTR: { get: (data: { replacement: string }) => data.replacement, set: (rr, value) => ((rr as { data: object }).data = { ...(rr as { data: object }).data, replacement: value }) },
};

/** `answer value`: the name a CNAME, DNAME, NS, PTR, SRV, MX, SOA or NAPTR record points to. */
export class ValueResponseRule implements ResponseRule {
  constructor(readonly rewriter: StringRewriter) {}
  record(rr: Answer): void {
    const field = valueFields[rr.type];
    const data = (rr as { data?: unknown }).data;
    if (field === undefined || data === undefined || data === null) return;
    const value = field.get(data as never);
    if (typeof value !== 'string' || value === '') return;
    const name = fqdn(value);
    const rewritten = this.rewriter.rewrite(name);
    if (rewritten !== name) field.set(rr, rewritten);
  }
}

/** `ttl`: clamps every TTL into [min, max]. */
export class TtlResponseRule implements ResponseRule {
  constructor(
    readonly min: number,
    readonly max: number,
  ) {}
  record(rr: Answer): void {
    const ttl = (rr as { ttl?: number }).ttl ?? 0;
    if (ttl < this.min) (rr as { ttl: number }).ttl = this.min;
    else if (ttl > this.max) (rr as { ttl: number }).ttl = this.max;
  }
}

/** `rcode`: one rcode for another. */
export class RcodeResponseRule implements ResponseRule {
  constructor(
    readonly from: number,
    readonly to: number,
  ) {}
  message(msg: Packet): void {
    const flags = msg.flags ?? 0;
    if ((flags & 0xf) === this.from) msg.flags = (flags & ~0xf) | (this.to & 0xf);
  }
}

/** `edns0 ... revert` of an option the rule added: the reply does not show it. */
export class RemoveOptionRule implements ResponseRule {
  constructor(readonly code: number) {}
  options(options: EdnsOption[]): void {
    const at = options.findIndex((o) => o.code === this.code);
    if (at >= 0) options.splice(at, 1);
  }
}

/** `edns0 ... revert` of an option the rule changed: the reply shows the client's value again. */
export class RestoreOptionRule implements ResponseRule {
  constructor(readonly original: EdnsOption) {}
  options(options: EdnsOption[]): void {
    const at = options.findIndex((o) => o.code === this.original.code);
    if (at >= 0) options[at] = this.original;
  }
}
