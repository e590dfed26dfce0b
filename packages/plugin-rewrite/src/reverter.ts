/**
 * The writer a rewritten query's reply goes through (CoreDNS's `ResponseReverter`): the client
 * gets its own question back, and the response rules of the matched rules run, last rule first.
 *
 * Replies written as objects are copied before they change (the writer may keep its object, as a
 * cache would); replies written as wire bytes (cache hits, forward, lighthouse) are decoded, since
 * a new question changes the offsets every compression pointer depends on. Either way the reply
 * goes on as an object, which the recorders above measure as CoreDNS's measure the message its
 * `ResponseReverter` writes.
 */
import dnsPacket from 'dns-packet';
import type { Answer, OptAnswer, Packet } from 'dns-packet';
import { errorMessage, Flags, Rcode, replyTo } from '@foghorn/core';
import type { EdnsOption, Logger, Request, ResponseWriter } from '@foghorn/core';
import { fqdn } from '@foghorn/core/wire';
import type { ResponseRule } from './response.js';

/** Asks the rest of the chain for `name` and `qtype`; undefined when nothing was written. */
export type Lookup = (name: string, qtype: number) => Promise<Packet | undefined>;


export class Reverter implements ResponseWriter {
  /** True once a reply went out through this writer. */
  written = false;
  /** The write in progress while a cname rule looks up its new target. */
  pending: Promise<void> | undefined = undefined;

  constructor(
    private readonly inner: ResponseWriter,
    /** The query as the client sent it. */
    private readonly original: Request,
    /** The rewritten query's type, which a cname rule's lookup asks for. */
    private readonly qtype: number,
    private readonly rules: readonly ResponseRule[],
    private readonly lookup: Lookup,
    private readonly log: Logger,
  ) {}

  write(msg: Packet): number {
    this.written = true;
    const reply = this.revert(copyMessage(msg));
    const cnames = this.rules.filter((r) => r.newTarget !== undefined);
    if (cnames.length === 0) return this.inner.write(reply);
    this.pending = this.retarget(reply, cnames).then(() => void this.inner.write(reply));
    return 0;
  }

  writeWire(wire: Buffer, size = wire.length): number {
    let msg: Packet;
    try {
      msg = dnsPacket.decode(wire);
    } catch (error) {
      // A reply the client could not match to its question is no better than none.
      this.log.error(`reply to rewritten query is not decodable: ${errorMessage(error)}`);
      this.written = true;
      return this.inner.write(replyTo(this.original, Rcode.SERVFAIL));
    }
    this.written = true;
    // Octets left out of `size` are the OPT the plugin below wrote for the scrub (core's
    // `ResponseWriter.writeWire`). In CoreDNS the scrub adds it after this writer and after the
    // recorders above it (log, prometheus), which count the message without it; so it goes here,
    // and the listener's scrub adds it back for the client.
    if (size < wire.length && msg.additionals !== undefined) msg.additionals = msg.additionals.filter((rr) => rr.type !== 'OPT');
    const reply = this.revert(msg);
    const cnames = this.rules.filter((r) => r.newTarget !== undefined);
    if (cnames.length === 0) return this.inner.write(reply);
    this.pending = this.retarget(reply, cnames).then(() => void this.inner.write(reply));
    return 0;
  }

  /** Restores the question and runs the record, header and OPT rules, in reverse rule order. */
  private revert(msg: Packet): Packet {
    msg.questions = replyTo(this.original).questions;
    // An edns0 rule gave the query an OPT record the client did not send; RFC 6891 §7 forbids
    // one in the reply to that client.
    if (!this.original.hasEdns && msg.additionals?.some((rr) => rr.type === 'OPT')) {
      msg.additionals = msg.additionals.filter((rr) => rr.type !== 'OPT');
    }
    const rules = this.rules;
    if (rules.length === 0) return msg;
    let opt: OptAnswer | undefined;
    for (const section of [msg.authorities, msg.answers, msg.additionals]) {
      for (const rr of section ?? []) {
        if (rr.type === 'OPT') {
          opt = rr as OptAnswer;
          continue;
        }
        for (let i = rules.length - 1; i >= 0; i--) rules[i]!.record?.(rr);
      }
    }
    for (let i = rules.length - 1; i >= 0; i--) rules[i]!.message?.(msg);
    if (opt !== undefined && opt.options !== undefined) {
      const options = opt.options as unknown as EdnsOption[];
      for (let i = rules.length - 1; i >= 0; i--) rules[i]!.options?.(options);
    }
    return msg;
  }

  /**
   * CoreDNS's cname rule: the first CNAME whose target a rule rewrites gets the new target, the
   * CNAMEs before it stay, and the rest of the answer is the lookup of the new target.
   */
  private async retarget(msg: Packet, cnames: readonly ResponseRule[]): Promise<void> {
    for (let i = cnames.length - 1; i >= 0; i--) {
      const rule = cnames[i]!;
      const answers = msg.answers ?? [];
      let hit: { at: number; target: string } | undefined;
      for (let at = 0; at < answers.length && hit === undefined; at++) {
        const rr = answers[at]!;
        if (rr.type !== 'CNAME') continue;
        const target = rule.newTarget!(fqdn(rr.data));
        if (target !== undefined) hit = { at, target };
      }
      if (hit === undefined) continue;
      let upstream: Packet | undefined;
      try {
        upstream = await this.lookup(hit.target, this.qtype);
      } catch (error) {
        this.log.error(`upstream lookup failed: ${errorMessage(error)}`);
        continue;
      }
      if (upstream === undefined) {
        this.log.error('upstream lookup returned nil');
        continue;
      }
      const kept: Answer[] = [];
      for (let at = 0; at <= hit.at; at++) {
        const rr = answers[at]!;
        if (rr.type === 'CNAME') kept.push(at === hit.at ? { ...rr, data: hit.target } : rr);
      }
      msg.answers = [...kept, ...(upstream.answers ?? [])];
      // A truncated lookup must stay visibly truncated, or a cache would keep the short answer.
      msg.flags = ((msg.flags ?? 0) & ~Flags.TC) | ((upstream.flags ?? 0) & Flags.TC);
    }
  }
}

/** A copy whose sections, records and OPT options can change without touching `msg`. */
function copyMessage(msg: Packet): Packet {
  const records = (section: Answer[] | undefined): Answer[] | undefined =>
    section?.map((rr) => (rr.type === 'OPT' ? ({ ...rr, options: [...((rr as OptAnswer).options ?? [])] } as Answer) : { ...rr }));
  return { ...msg, answers: records(msg.answers), authorities: records(msg.authorities), additionals: records(msg.additionals) } as Packet;
}
