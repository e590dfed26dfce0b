/**
 * Parsing `rewrite` (CoreDNS's plugin/rewrite/setup.go and the `new*Rule` constructors).
 *
 * ~~~ txt
 * rewrite [continue|stop] FIELD [TYPE] [(FROM TO)|TTL] [OPTIONS]
 * rewrite [continue|stop] {
 *     FIELD [TYPE] [(FROM TO)|TTL] [OPTIONS]
 * }
 * ~~~
 *
 * Every `rewrite` line is one rule; a block holds the tokens of one rule spread over lines (the
 * `answer` options of a name rule, typically): CoreDNS reads the block's tokens as if they were on
 * the line. Errors keep CoreDNS's words and name the offending token's position.
 */
import { errorAt, goRegExp, normalizeZone, regExpGroups } from '@foghorn/core';
import type { Controller, Request, Token } from '@foghorn/core';
import { classNumber, typeNumber } from '@foghorn/core/wire';
import { Rewrite } from './handler.js';
import type { QueryEdit } from './query.js';
import { NameResponseRule, RegexRewriter, ValueResponseRule } from './response.js';
import type { ResponseRule } from './response.js';
import { clientAddressBytes, ClassRule, CnameRule, EDNS0_NSID, NameMatcher, NameRule, OptionRule, RcodeRule, SubnetRule, suffixAutoRules, TtlRule, TypeRule } from './rules.js';
import type { EdnsAction, MatchType, Mode, OptionData, Rule } from './rules.js';

/** CoreDNS refuses longer patterns so a hostile Corefile cannot make regex compilation eat memory. */
const maxRegexpLen = 10000;
const matchTypes: ReadonlySet<string> = new Set<MatchType>(['exact', 'prefix', 'suffix', 'substring', 'regex']);
const ednsActions: ReadonlySet<string> = new Set<EdnsAction>(['set', 'append', 'replace', 'unset']);

/** miekg/dns's `StringToRcode`: what an `rcode` rule accepts besides numbers 0-23. */
const rcodeNames: ReadonlyMap<string, number> = new Map([
  ['NOERROR', 0], ['FORMERR', 1], ['SERVFAIL', 2], ['NXDOMAIN', 3], ['NOTIMP', 4], ['NOTIMPL', 4],
  ['REFUSED', 5], ['YXDOMAIN', 6], ['YXRRSET', 7], ['NXRRSET', 8], ['NOTAUTH', 9], ['NOTZONE', 10],
  ['BADSIG', 16], ['BADVERS', 16], ['BADKEY', 17], ['BADTIME', 18], ['BADMODE', 19], ['BADNAME', 20],
  ['BADALG', 21], ['BADTRUNC', 22], ['BADCOOKIE', 23],
]);

/** A rule's tokens and where to point when they are wrong. */
class RuleTokens {
  constructor(
    /** Where an error points when the rule has no argument to blame: the token before the arguments. */
    readonly fallback: Token,
    readonly args: readonly Token[],
  ) {}

  text(i: number): string {
    return this.args[i]?.text ?? '';
  }

  /** An error at argument `i`, or at the last argument, or at the fallback when there is none. */
  fail(message: string, i = 0): Error {
    return errorAt(this.args[i] ?? this.args[this.args.length - 1] ?? this.fallback, message);
  }
}

/** Reads every `rewrite` of the block, in file order. Pure: the setup table test calls it. */
export function parseRewrite(c: Controller): Rule[] {
  const rules: Rule[] = [];
  while (c.next()) {
    const directive = c.token();
    const args = c.remainingArgTokens();
    if (args.length < 2) while (c.nextBlock()) args.push(c.token());
    rules.push(newRule(new RuleTokens(directive, args)));
  }
  return rules;
}

/** Parses the block's `rewrite` lines and adds one handler for all of them. */
export function setup(c: Controller): void {
  const rules = parseRewrite(c);
  const log = c.log;
  c.addHandler((next) => new Rewrite(rules, log, next));
}

function newRule(t: RuleTokens): Rule {
  if (t.args.length === 0) throw t.fail('no rule type specified for rewrite');
  const first = t.text(0).toLowerCase();
  let mode: Mode = 'stop';
  let start = 1;
  if (first === 'continue' || first === 'stop') {
    mode = first;
    if (t.args.length < 2) throw t.fail(`${first} rule must begin with a rule type`);
    start = 2;
  }
  const ruleType = t.text(start - 1).toLowerCase();
  const rest = new RuleTokens(t.args[start - 1]!, t.args.slice(start));
  switch (ruleType) {
    case 'answer':
      throw t.fail('response rewrites must begin with a name rule', start - 1);
    case 'name':
      return newNameRule(mode, rest);
    case 'class':
    case 'type': {
      if (rest.args.length !== 2) throw t.fail(`${ruleType} rules must have exactly two arguments`, start - 1);
      const parse = ruleType === 'type' ? typeOf : classOf;
      const from = parse(rest.text(0));
      if (from === undefined) throw rest.fail(`invalid ${ruleType} "${rest.text(0).toUpperCase()}"`, 0);
      const to = parse(rest.text(1));
      if (to === undefined) throw rest.fail(`invalid ${ruleType} "${rest.text(1).toUpperCase()}"`, 1);
      return ruleType === 'type' ? new TypeRule(mode, from, to) : new ClassRule(mode, from, to);
    }
    case 'edns0':
      return newEdns0Rule(mode, rest);
    case 'ttl':
      return newTtlRule(mode, rest);
    case 'cname':
      return newCnameRule(mode, rest);
    case 'rcode':
      return newRcodeRule(mode, rest);
    default:
      throw t.fail(`invalid rule type "${t.text(0)}"`);
  }
}

function typeOf(text: string): number | undefined {
  const n = typeNumber(text.toUpperCase());
  return n > 0 ? n : undefined;
}

function classOf(text: string): number | undefined {
  const upper = text.toUpperCase();
  if (upper === 'NONE') return 254;
  const n = classNumber(upper);
  return n > 0 ? n : undefined;
}

/** A Go pattern as a RegExp, or undefined when Go's `regexp.Compile` would refuse it. */
function compile(pattern: string): RegExp | undefined {
  try {
    return goRegExp(pattern);
  } catch {
    return undefined;
  }
}

/** How many of `{0}`..`{100}` a replacement uses (CoreDNS's `getSubExprUsage`). */
function groupsUsed(replacement: string): number {
  let used = 0;
  for (let i = 0; i <= 100; i++) if (replacement.includes(`{${i}}`)) used++;
  return used;
}

/** CoreDNS's `isValidRegexPattern`: compiles FROM and checks TO uses no more groups than it has. */
function validRegex(t: RuleTokens, fromAt: number, to: string, prefix = ''): RegExp {
  const from = t.text(fromAt);
  if (from.length > maxRegexpLen) throw t.fail(`${prefix}regex pattern too long: ${from.length} > ${maxRegexpLen}`, fromAt);
  const pattern = compile(from);
  if (pattern === undefined) throw t.fail(`${prefix}invalid regex matching pattern: ${from}`, fromAt);
  if (groupsUsed(to) > regExpGroups(pattern)) {
    throw t.fail(`${prefix}the rewrite regex pattern (${to}) uses more subexpressions than its corresponding matching regex pattern (${from})`, fromAt);
  }
  return pattern;
}

function newNameRule(mode: Mode, t: RuleTokens): Rule {
  const n = t.args.length;
  if (n < 2) throw t.fail('too few arguments for a name rule');
  const matchType = n === 2 ? 'exact' : t.text(0).toLowerCase();
  const fromAt = n === 2 ? 0 : 1;
  let from = t.text(fromAt);
  let to = t.text(fromAt + 1);
  if (matchType !== 'regex') {
    from = normalizeZone(from);
    to = normalizeZone(to);
  }
  let auto = false;
  let answers: ResponseRule[] = [];
  if (n > 3) ({ auto, answers } = parseAnswers(matchType, new RuleTokens(t.args[2]!, t.args.slice(3))));
  switch (matchType) {
    case 'exact':
      // CoreDNS compiles an exact rule's TO as a pattern too, so a TO no regex can be is refused.
      validRegex(new RuleTokens(t.fallback, [t.args[fromAt + 1]!]), 0, from);
      return new NameRule(mode, 'exact', from, to, true, answers);
    case 'prefix':
    case 'substring':
      return new NameRule(mode, matchType, from, to, auto, answers);
    case 'suffix':
      return new NameRule(mode, 'suffix', from, to, false, auto ? [...suffixAutoRules(from, to), ...answers] : answers);
    case 'regex':
      return new NameRule(mode, 'regex', validRegex(t, fromAt, to), normalizeZone(to), auto, answers);
    default:
      throw t.fail(`name rule supports only exact, prefix, suffix, substring, and regex name matching, received: ${matchType}`);
  }
}

/** `answer auto | answer name FROM TO | answer value FROM TO`, repeated; `answer` may be left out after the first. */
function parseAnswers(name: string, t: RuleTokens): { auto: boolean; answers: ResponseRule[] } {
  const args = t.args;
  if (args.length < 2) throw t.fail(`invalid arguments for ${name} rule`);
  let auto = false;
  let nameRules = 0;
  let last = '';
  const answers: ResponseRule[] = [];
  for (let i = 0; i < args.length; ) {
    if (last === '' && args[i]!.text !== 'answer') throw t.fail(`exceeded the number of arguments for a non-answer rule argument for ${name} rule`, i);
    if (args[i]!.text === 'answer') i++;
    if (i === args.length) throw t.fail(`type missing for answer rule for ${name} rule`, i - 1);
    const kindAt = i;
    last = args[i++]!.text;
    if (last === 'auto') {
      auto = true;
      continue;
    }
    if (last !== 'name' && last !== 'value') throw t.fail(`invalid type "${last}" for answer rule for ${name} rule`, kindAt);
    if (args.length - i < 2) throw t.fail(`${last} answer rule for ${name} rule: 2 arguments required`, kindAt);
    const rewriter = new RegexRewriter(validRegex(t, i, t.text(i + 1), `${last} answer rule for ${name} rule: `), normalizeZone(t.text(i + 1)));
    answers.push(last === 'name' ? new NameResponseRule(rewriter) : new ValueResponseRule(rewriter));
    if (last === 'name') nameRules++;
    i += 2;
  }
  if (auto && nameRules > 0) throw t.fail('auto name answer rule cannot be combined with explicit name anwer rules');
  return { auto, answers };
}

/** The name part shared by ttl and rcode rules: `[TYPE] NAME`, TYPE given when `typed`. */
function nameMatcher(rule: string, t: RuleTokens, typed: boolean): NameMatcher {
  if (!typed) return new NameMatcher('exact', normalizeZone(t.text(0)));
  const type = t.text(0).toLowerCase();
  if (!matchTypes.has(type)) throw t.fail(`${rule} rule supports only exact, prefix, suffix, substring, and regex name matching`);
  if (type !== 'regex') return new NameMatcher(type as MatchType, normalizeZone(t.text(1)));
  const source = t.text(1);
  if (source.length > maxRegexpLen) throw t.fail(`regex pattern too long in a ${rule} rule: ${source.length} > ${maxRegexpLen}`, 1);
  const pattern = compile(source);
  if (pattern === undefined) throw t.fail(`invalid regex pattern in a ${rule} rule: ${source}`, 1);
  return new NameMatcher('regex', pattern);
}

/** Go's `strconv.ParseUint(s, 10, 32)`. */
function parseUint32(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 0xffffffff ? n : undefined;
}

/** `SECONDS`, `MIN-MAX`, `MIN-` or `-MAX` (CoreDNS's `isValidTTL`). */
function ttlRange(text: string): [number, number] | undefined {
  const parts = text.split('-');
  if (parts.length === 1) {
    const n = parseUint32(text);
    return n === undefined ? undefined : [n, n];
  }
  if (parts.length !== 2) return undefined;
  const [low, high] = parts as [string, string];
  // "-" alone would be 0-2147483647, which is pointless; CoreDNS refuses it.
  if (low === '' && high === '') return undefined;
  const min = low === '' ? 0 : parseUint32(low);
  const max = high === '' ? 2147483647 : parseUint32(high);
  if (min === undefined || max === undefined || min > max) return undefined;
  return [min, max];
}

function newTtlRule(mode: Mode, t: RuleTokens): Rule {
  const n = t.args.length;
  if (n < 2) throw t.fail(`too few (${n}) arguments for a ttl rule`);
  const valueAt = n === 2 ? 1 : 2;
  const range = n <= 3 ? ttlRange(t.text(valueAt)) : undefined;
  if (range === undefined) throw t.fail(`invalid TTL '${n <= 3 ? t.text(valueAt) : ''}' for a ttl rule`, n <= 3 ? valueAt : 0);
  return new TtlRule(mode, nameMatcher('ttl', t, n === 3), range[0], range[1]);
}

/** A number 0-23 or a name of miekg/dns's `StringToRcode`. */
function rcodeOf(text: string): number | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n <= 23) return n;
  }
  return rcodeNames.get(text.toUpperCase());
}

function newRcodeRule(mode: Mode, t: RuleTokens): Rule {
  const n = t.args.length;
  if (n < 3) throw t.fail(`too few (${n}) arguments for a rcode rule`);
  const fromAt = n === 3 ? 1 : 2;
  const from = n <= 4 ? rcodeOf(t.text(fromAt)) : undefined;
  if (from === undefined) throw t.fail(`invalid matching RCODE '${n <= 4 ? t.text(fromAt) : ''}' for a rcode rule`, n <= 4 ? fromAt : 0);
  const to = rcodeOf(t.text(fromAt + 1));
  if (to === undefined) throw t.fail(`invalid replacement RCODE '${t.text(fromAt + 1)}' for a rcode rule`, fromAt + 1);
  return new RcodeRule(mode, nameMatcher('rcode', t, n === 4), from, to);
}

function newCnameRule(mode: Mode, t: RuleTokens): Rule {
  const n = t.args.length;
  if (n !== 2 && n !== 3) throw t.fail(`too few (${n}) arguments for a cname rule`);
  const type = n === 3 ? t.text(0).toLowerCase() : 'exact';
  if (!matchTypes.has(type)) throw t.fail(`unknown cname rewrite type: ${type}`);
  let from = t.text(n - 2).toLowerCase();
  let to = t.text(n - 1).toLowerCase();
  if (type === 'exact') {
    from = normalizeZone(from);
    to = normalizeZone(to);
  }
  if (type !== 'regex') return new CnameRule(mode, type as MatchType, from, to);
  if (from.length > maxRegexpLen) throw t.fail(`regex pattern too long in a cname rule: ${from.length} > ${maxRegexpLen}`, n - 2);
  const pattern = compile(from);
  if (pattern === undefined) throw t.fail(`invalid cname rewrite regex pattern: ${from}`, n - 2);
  return new CnameRule(mode, 'regex', pattern, to);
}

/** Go's `strconv.ParseUint(text, 0, bits)`: decimal, `0x` hex, `0o`/`0` octal, `0b` binary. */
function parseUintBase0(t: RuleTokens, i: number, bits: number): number {
  const text = t.text(i);
  const digits = text.replaceAll('_', '');
  let n = NaN;
  if (/^0[xX][0-9a-fA-F]+$/.test(digits)) n = parseInt(digits.slice(2), 16);
  else if (/^0[bB][01]+$/.test(digits)) n = parseInt(digits.slice(2), 2);
  else if (/^0[oO]?[0-7]+$/.test(digits)) n = parseInt(digits.replace(/^0[oO]?/, ''), 8);
  else if (/^\d+$/.test(digits)) n = Number(digits);
  if (Number.isNaN(n)) throw t.fail(`strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`, i);
  if (n >= 2 ** bits) throw t.fail(`strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`, i);
  return n;
}

/** Variables an `edns0 local` option's data may name, and how each is read per query. */
type Variable = (req: Request, query: QueryEdit) => Buffer | undefined;
const variables: ReadonlyMap<string, Variable> = new Map<string, Variable>([
  ['{qname}', (_req: Request, query: QueryEdit) => Buffer.from(query.name, 'latin1')],
  ['{qtype}', (_req: Request, query: QueryEdit) => uint16(query.qtype)],
  ['{client_ip}', (req: Request) => clientAddressBytes(req.remoteAddress)],
  ['{client_port}', (req: Request) => uint16(req.remotePort)],
  ['{protocol}', (req: Request) => Buffer.from(req.transport)],
  ['{server_ip}', (req: Request) => listenerHost(req)],
  ['{server_port}', (req: Request) => {
    const port = /:(\d+)$/.exec(req.server);
    return port ? uint16(Number(port[1])) : undefined;
  }],
]);

function uint16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value & 0xffff);
  return b;
}

/**
 * The server's address, from the listener's `dns://HOST:PORT`. A listener on every address
 * (`dns://:53`) does not know which one the query reached, so the variable has no value there.
 */
function listenerHost(req: Request): Buffer | undefined {
  const host = /^[a-z]+:\/\/\[?([^\]]*?)\]?:\d+$/.exec(req.server)?.[1];
  return host ? clientAddressBytes(host) : undefined;
}

/** A metadata label as CoreDNS's `metadata.IsLabel` reads it: `plugin/name`, both parts non-empty. */
function isMetadataLabel(variable: string): boolean {
  return /^\{[^/{}]+\/[^{}]+\}$/.test(variable);
}

/**
 * A metadata label's value as option data (CoreDNS's `edns0VariableRule.ruleData`): undefined,
 * so the rule does not apply, when the block has no *metadata* plugin, nobody set the label, or
 * its value is empty.
 */
function metadataVariable(label: string): Variable {
  return (req: Request) => {
    const value = req.metadata?.get(label);
    return value ? Buffer.from(value, 'utf8') : undefined;
  };
}

function newEdns0Rule(mode: Mode, t: RuleTokens): Rule {
  if (t.args.length < 2) throw t.fail('too few arguments for an EDNS0 rule');
  const kind = t.text(0).toLowerCase();
  const action = t.text(1).toLowerCase();
  if (!ednsActions.has(action)) throw t.fail(`invalid action: ${JSON.stringify(action)}`, 1);
  if (action === 'unset') {
    const want = kind === 'local' ? 3 : 2;
    if (kind !== 'local' && kind !== 'nsid' && kind !== 'subnet') throw t.fail(`invalid rule type ${JSON.stringify(kind)}`);
    if (t.args.length !== want) throw t.fail(`${kind} unset action requires exactly ${kind === 'local' ? 'two arguments' : 'one argument'}`, t.args.length - 1);
    if (kind === 'local') return new OptionRule(mode, 'unset', parseUintBase0(t, 2, 16), Buffer.alloc(0), false, false);
    if (kind === 'nsid') return new OptionRule(mode, 'unset', EDNS0_NSID, Buffer.alloc(0), false, false);
    return new SubnetRule(mode, 'unset', 0, 0, false);
  }
  const revert = t.args.length > 2 && t.text(t.args.length - 1) === 'revert';
  const args = revert ? new RuleTokens(t.fallback, t.args.slice(0, -1)) : t;
  const n = args.args.length;
  switch (kind) {
    case 'local': {
      if (n !== 4) throw args.fail('EDNS0 local rules require three or four args');
      const code = parseUintBase0(args, 2, 16);
      const text = args.text(3);
      if (text.startsWith('{') && text.endsWith('}')) {
        const read = variables.get(text);
        if (read === undefined && !isMetadataLabel(text)) throw args.fail(`unsupported variable name ${JSON.stringify(text)}`, 3);
        const data: OptionData = read ?? metadataVariable(text.slice(1, -1));
        return new OptionRule(mode, action as EdnsAction, code, data, revert, true);
      }
      return new OptionRule(mode, action as EdnsAction, code, hexOrText(args, 3), revert, false);
    }
    case 'nsid':
      if (n !== 2) throw args.fail('EDNS0 NSID rules can accept no more than one arg', 2);
      return new OptionRule(mode, action as EdnsAction, EDNS0_NSID, Buffer.alloc(0), revert, false);
    case 'subnet': {
      if (n !== 4) throw args.fail('EDNS0 subnet rules require three or four args');
      const v4 = parseUintBase0(args, 2, 16);
      if (v4 > 32) throw args.fail(`invalid IPv4 bit mask length ${v4}`, 2);
      const v6 = parseUintBase0(args, 3, 16);
      if (v6 > 128) throw args.fail(`invalid IPv6 bit mask length ${v6}`, 3);
      return new SubnetRule(mode, action as EdnsAction, v4, v6, revert);
    }
    default:
      throw t.fail(`invalid rule type ${JSON.stringify(kind)}`);
  }
}

/** Option data: hex after `0x`, otherwise the text's bytes. */
function hexOrText(t: RuleTokens, i: number): Buffer {
  const text = t.text(i);
  if (!text.startsWith('0x')) return Buffer.from(text, 'latin1');
  const hex = text.slice(2);
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) throw t.fail(`encoding/hex: invalid byte: U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(bad[0]).replaceAll('"', "'")}`, i);
  if (hex.length % 2 !== 0) throw t.fail('encoding/hex: odd length hex string', i);
  return Buffer.from(hex, 'hex');
}
