/**
 * Parsing `template` (CoreDNS's plugin/template/setup.go).
 *
 * ~~~ txt
 * template CLASS TYPE [ZONE...] {
 *     match REGEX...
 *     answer RR
 *     additional RR
 *     authority RR
 *     rcode CODE
 *     ederror EXTENDED_ERROR_CODE [EXTRA_REASON]
 *     fallthrough [FALLTHROUGH-ZONE...]
 *     upstream
 * }
 * ~~~
 *
 * Every `template` of a server block is one template of a single handler, tried in file order.
 */
import { CLASS_ANY, errorAt, errorMessage, fallthroughZones, goRegExp, TYPE_ANY, Views, zonesFromArgs } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { GoTemplate, TemplateError } from './gotemplate.js';
import { TemplateHandler } from './handler.js';
import { createTemplateMetrics } from './metrics.js';

/** One `template` directive. */
export interface Template {
  /** Zones it answers, lower-case and fully qualified; the server block's when none are given. */
  readonly zones: readonly string[];
  readonly qclass: number;
  readonly qtype: number;
  /** The CLASS and TYPE as written: what `.Class` and `.Type` show for a query of class or type ANY. */
  readonly className: string;
  readonly typeName: string;
  /** First match wins; `.*` when no `match` was given. */
  readonly regexes: readonly RegExp[];
  readonly answer: readonly GoTemplate[];
  readonly additional: readonly GoTemplate[];
  readonly authority: readonly GoTemplate[];
  readonly rcode: number;
  readonly ederror: { readonly code: number; readonly reason: string } | null;
  /** Zones whose unmatched queries go on to the next template or plugin; empty without `fallthrough`. */
  readonly fallthrough: readonly string[];
  /** The fields of the template data its RR templates read; null when one reads dot itself. */
  readonly fields: ReadonlySet<string> | null;
}

/** CoreDNS refuses longer patterns so a hostile Corefile cannot make regex compilation eat memory. */
const maxRegexpLen = 10000;

/** miekg/dns's `StringToClass`, case-sensitive as CoreDNS reads it. */
const classes: ReadonlyMap<string, number> = new Map([['IN', 1], ['CS', 2], ['CH', 3], ['HS', 4], ['NONE', 254], ['ANY', CLASS_ANY]]);

/** miekg/dns's `StringToType` for the types a template is written for. */
const qtypes: ReadonlyMap<string, number> = new Map([
  ['A', 1], ['NS', 2], ['CNAME', 5], ['SOA', 6], ['PTR', 12], ['HINFO', 13], ['MX', 15], ['TXT', 16],
  ['AAAA', 28], ['LOC', 29], ['SRV', 33], ['NAPTR', 35], ['DNAME', 39], ['DS', 43], ['SSHFP', 44],
  ['RRSIG', 46], ['NSEC', 47], ['DNSKEY', 48], ['NSEC3', 50], ['TLSA', 52], ['SVCB', 64], ['HTTPS', 65],
  ['SPF', 99], ['AXFR', 252], ['IXFR', 251], ['ANY', TYPE_ANY], ['URI', 256], ['CAA', 257],
]);

/** miekg/dns's `StringToRcode`, case-sensitive as CoreDNS reads it. */
const rcodes: ReadonlyMap<string, number> = new Map([
  ['NOERROR', 0], ['FORMERR', 1], ['SERVFAIL', 2], ['NXDOMAIN', 3], ['NOTIMP', 4], ['NOTIMPL', 4],
  ['REFUSED', 5], ['YXDOMAIN', 6], ['YXRRSET', 7], ['NXRRSET', 8], ['NOTAUTH', 9], ['NOTZONE', 10],
]);

function compileTemplates(section: string, args: readonly Token[], into: GoTemplate[]): void {
  for (const arg of args) {
    try {
      into.push(GoTemplate.compile(section, arg.text));
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      throw errorAt(arg, `could not compile template: ${arg.text}, ${error.message}`);
    }
  }
}

/** The union of the fields the templates read, or null when one of them reads them all. */
function fieldsRead(templates: readonly GoTemplate[]): ReadonlySet<string> | null {
  const fields = new Set<string>();
  for (const t of templates) {
    if (t.fields === null) return null;
    for (const f of t.fields) fields.add(f);
  }
  return fields;
}

/** Reads every `template` of the block. Pure: the setup table test calls it directly. */
export function parseTemplate(c: Controller): Template[] {
  const templates: Template[] = [];
  while (c.next()) {
    if (!c.nextArg()) throw c.argError();
    const className = c.val();
    const qclass = classes.get(className);
    if (qclass === undefined) throw c.error(`invalid query class ${className}`);
    if (!c.nextArg()) throw c.argError();
    const typeName = c.val();
    const qtype = qtypes.get(typeName);
    if (qtype === undefined) throw c.error(`invalid RR class ${typeName}`);
    // CoreDNS skips zone arguments it cannot normalise.
    const zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
    const regexes: RegExp[] = [];
    const answer: GoTemplate[] = [];
    const additional: GoTemplate[] = [];
    const authority: GoTemplate[] = [];
    let rcode = 0;
    let ederror: Template['ederror'] = null;
    let fallthrough: string[] = [];
    while (c.nextBlock()) {
      const option = c.token();
      switch (option.text) {
        case 'match': {
          const args = c.remainingArgTokens();
          if (args.length === 0) throw c.argError();
          for (const arg of args) {
            if (arg.text.length > maxRegexpLen) throw errorAt(arg, `regex pattern too long: ${arg.text.length} > ${maxRegexpLen}`);
            try {
              regexes.push(goRegExp(arg.text));
            } catch (error) {
              throw errorAt(arg, `could not parse regex: ${arg.text}, ${errorMessage(error)}`);
            }
          }
          break;
        }
        case 'answer':
        case 'additional':
        case 'authority': {
          const args = c.remainingArgTokens();
          if (args.length === 0) throw c.argError();
          compileTemplates(option.text, args, option.text === 'answer' ? answer : option.text === 'additional' ? additional : authority);
          break;
        }
        case 'rcode': {
          if (!c.nextArg()) throw c.argError();
          const code = rcodes.get(c.val());
          if (code === undefined) throw c.error(`unknown rcode ${c.val()}`);
          rcode = code;
          break;
        }
        case 'ederror': {
          const args = c.remainingArgTokens();
          if (args.length !== 1 && args.length !== 2) throw c.argError();
          const text = args[0]!.text;
          const code = /^\d+$/.test(text) ? Number(text) : NaN;
          if (!(code <= 0xffff)) {
            const why = Number.isNaN(code) ? 'invalid syntax' : 'value out of range';
            throw errorAt(args[0]!, `error parsing extended DNS error code ${c.val()}, strconv.ParseUint: parsing ${JSON.stringify(text)}: ${why}`);
          }
          ederror = { code, reason: args[1]?.text ?? '' };
          break;
        }
        case 'fallthrough': {
          const args = c.remainingArgs();
          fallthrough = fallthroughZones(c, args, { ignoreInvalid: true });
          break;
        }
        case 'upstream':
          // Accepted and ignored, as CoreDNS does ("remove soon"): CNAME targets are always looked up.
          c.remainingArgs();
          break;
        case 'var':
        case 'expr':
          // CoreDNS evaluates these with the expr-lang language, which Foghorn does not have.
          throw errorAt(option, `${option.text} is not supported by Foghorn's template plugin (it needs CoreDNS's expr language)`);
        default:
          throw c.argError();
      }
    }
    templates.push({
      zones,
      qclass,
      qtype,
      className,
      typeName,
      regexes: regexes.length > 0 ? regexes : [/.*/],
      answer,
      additional,
      authority,
      rcode,
      ederror,
      fallthrough,
      fields: fieldsRead([...answer, ...additional, ...authority]),
    });
  }
  return templates;
}

/** Parses the block's `template` directives and adds one handler for all of them. */
export function setup(c: Controller): void {
  const templates = parseTemplate(c);
  const metrics = createTemplateMetrics(c.registry);
  c.addHandler((next) => new TemplateHandler(templates, metrics, next, c.use(Views)[0]?.name ?? ''));
}
