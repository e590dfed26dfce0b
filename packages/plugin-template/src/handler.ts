/**
 * The template handler (CoreDNS's plugin/template/template.go): the first template whose zone,
 * class, type and regex match the query renders the reply; a template whose zone matches but no
 * regex does answers SERVFAIL, unless it falls through to the next template or plugin.
 *
 * Cost: a query outside every template zone costs one zone match; a matched query renders its
 * templates and parses the records they produce (there is nothing to cache: the output depends on
 * the name).
 */
import { CLASS_ANY, errorMessage, Flags, lookupVia, matchZone, nextOrFailure, PluginError, Rcode, replyTo, TYPE_A, TYPE_AAAA, TYPE_ANY } from '@foghorn/core';
import type { Handler, HandlerResult, QueryMetadata, Request, ResponseWriter } from '@foghorn/core';
import { edeOption, parseRR, replyOpt } from '@foghorn/core/wire';
import type { Answer, Packet } from 'dns-packet';
import { methodArity, structType } from './gotemplate.js';
import type { GoTemplate, MethodValue, Struct, Value } from './gotemplate.js';
import type { TemplateMetrics } from './metrics.js';
import type { Template } from './setup.js';


/**
 * `.Meta "label"` (CoreDNS's `templateData.Meta`): the label's value in the query's metadata, the
 * empty string when nobody set it or the block has no *metadata* plugin.
 */
function metaMethod(metadata: QueryMetadata | undefined): MethodValue {
  return Object.assign(
    (label: Value): Value => {
      if (typeof label !== 'string') throw new Error(`wrong type for value; expected string; got ${typeof label}`);
      return metadata?.get(label) ?? '';
    },
    { [methodArity]: 1 },
  );
}
/** `.Meta` of every query without metadata. */
const noMetadata: MethodValue = metaMethod(undefined);

export class TemplateHandler implements Handler {
  readonly name = 'template';
  /** Every template's zones: a query outside them goes straight on. */
  private readonly zones: readonly string[];

  constructor(
    readonly templates: readonly Template[],
    private readonly metrics: TemplateMetrics,
    private readonly next: Handler | null,
    /** The block's view, the `view` label ('' without one). */
    private readonly view = '',
  ) {
    this.zones = templates.flatMap((t) => t.zones);
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const name = req.qname;
    if (matchZone(this.zones, name) === undefined) return nextOrFailure(this.name, this.next, req, w);
    for (const template of this.templates) {
      const zone = matchZone(template.zones, name);
      if (zone === undefined) continue;
      if (template.qclass !== CLASS_ANY && req.qclass !== CLASS_ANY && req.qclass !== template.qclass) continue;
      if (template.qtype !== TYPE_ANY && req.qtype !== TYPE_ANY && req.qtype !== template.qtype) continue;
      let match: RegExpExecArray | null = null;
      let regex: RegExp | undefined;
      for (regex of template.regexes) {
        match = regex.exec(name);
        if (match !== null) break;
      }
      if (match === null) {
        // CoreDNS returns SERVFAIL without writing: the server writes it.
        if (matchZone(template.fallthrough, name) === undefined) return Rcode.SERVFAIL;
        continue;
      }
      return this.answer(req, w, template, zone, regex!, match);
    }
    return nextOrFailure(this.name, this.next, req, w);
  }

  private answer(req: Request, w: ResponseWriter, template: Template, zone: string, regex: RegExp, match: RegExpExecArray): HandlerResult {
    const data = templateData(req, template, zone, regex, match);
    const labels = { server: req.server, zone, view: this.view, class: classOf(req, template), type: typeOf(req, template) };
    this.metrics.matches.inc(labels);
    if (template.rcode === Rcode.SERVFAIL) return Rcode.SERVFAIL;

    const msg = replyTo(req, template.rcode);
    msg.flags |= Flags.AA;
    msg.answers = this.render(template.answer, 'answer', data, labels);
    msg.additionals = this.render(template.additional, 'additional', data, labels);
    msg.authorities = this.render(template.authority, 'authority', data, labels);
    if (template.ederror !== null && req.hasEdns) {
      // RFC 6891 §7: no OPT record to a client that sent none (CoreDNS adds one anyway).
      msg.additionals.push(replyOpt(req, { options: [edeOption(template.ederror.code, template.ederror.reason)] }));
    }
    const cnames = req.qtype === TYPE_A || req.qtype === TYPE_AAAA ? msg.answers.filter((rr) => rr.type === 'CNAME') : [];
    if (cnames.length === 0) {
      w.write(msg);
      return template.rcode;
    }
    return this.followCnames(req, w, msg, template.rcode);
  }

  /**
   * A CNAME answer to an A or AAAA query gets the target's records after it, looked up through
   * the plugins after template (CoreDNS's `upstream.Lookup`); a failed lookup adds nothing.
   */
  private async followCnames(req: Request, w: ResponseWriter, msg: Packet, rcode: number): Promise<number> {
    const answers: Answer[] = [];
    for (const rr of msg.answers ?? []) {
      answers.push(rr);
      if (rr.type !== 'CNAME') continue;
      let up: Packet | undefined;
      try {
        up = await lookupVia(this.next, this.name, req, rr.data, req.qtype);
      } catch {
        continue;
      }
      if (up === undefined) continue;
      msg.flags = ((msg.flags ?? 0) & ~Flags.TC) | ((up.flags ?? 0) & Flags.TC);
      answers.push(...(up.answers ?? []));
    }
    msg.answers = answers;
    w.write(msg);
    return rcode;
  }

  /** Renders and parses one section; a failure counts in its metric and fails the query. */
  private render(templates: readonly GoTemplate[], section: string, data: Struct, labels: Record<string, string>): Answer[] {
    const records: Answer[] = [];
    for (const template of templates) {
      let text: string;
      try {
        text = template.execute(data);
      } catch (error) {
        this.metrics.templateFailures.inc({ ...labels, section, template: template.toString() });
        throw new PluginError(errorMessage(error), { rcode: Rcode.SERVFAIL });
      }
      try {
        records.push(parseRR(text));
      } catch (error) {
        this.metrics.rrFailures.inc({ ...labels, section, template: template.toString() });
        throw new PluginError(errorMessage(error), { rcode: Rcode.SERVFAIL });
      }
    }
    return records;
  }
}

/**
 * What a template sees as dot: CoreDNS's `templateData`, with only the fields the template's RR
 * templates read (all of them when one uses dot itself), so a query builds no unused map or struct.
 */
function templateData(req: Request, template: Template, zone: string, regex: RegExp, match: RegExpExecArray): Struct {
  const want = template.fields;
  const data: Record<string | symbol, Value> = { [structType]: '*template.templateData' };
  const wants = (field: string): boolean => want === null || want.has(field);
  if (wants('Zone')) data['Zone'] = zone;
  if (wants('Name')) data['Name'] = req.qname;
  if (wants('Regex')) data['Regex'] = regex.source;
  if (wants('Match')) data['Match'] = Array.from(match, (m) => m ?? '');
  if (wants('Group')) {
    const group = new Map<string, Value>();
    for (let i = 0; i < match.length; i++) group.set(String(i), match[i] ?? '');
    if (match.groups !== undefined) for (const key in match.groups) group.set(key, match.groups[key] ?? '');
    data['Group'] = group;
  }
  if (wants('Class')) data['Class'] = classOf(req, template);
  if (wants('Type')) data['Type'] = typeOf(req, template);
  if (wants('Message')) {
    data['Message'] = {
      [structType]: '*dns.Msg',
      Id: req.id,
      Opcode: (req.flags >> 11) & 0xf,
      RecursionDesired: req.recursionDesired,
      CheckingDisabled: req.checkingDisabled,
      AuthenticatedData: (req.flags & Flags.AD) !== 0,
    };
  }
  if (wants('Question')) data['Question'] = { [structType]: '*dns.Question', Name: req.name, Qtype: req.qtype, Qclass: req.qclass };
  if (wants('Remote')) data['Remote'] = req.remoteAddress;
  if (wants('Var')) data['Var'] = new Map<string, Value>();
  if (wants('Meta')) data['Meta'] = req.metadata === undefined ? noMetadata : metaMethod(req.metadata);
  return data as unknown as Struct;
}

/** `.Class`: the query's class, or the template's for a query of class ANY. */
function classOf(req: Request, template: Template): string {
  return req.qclass !== CLASS_ANY ? req.class : template.className;
}

/** `.Type`: the query's type, or the template's for a query of type ANY. */
function typeOf(req: Request, template: Template): string {
  return req.qtype !== TYPE_ANY ? req.type : template.typeName;
}
