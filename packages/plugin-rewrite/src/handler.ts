/**
 * The rewrite handler (CoreDNS's plugin/rewrite/rewrite.go): runs the rules in order on the
 * query, passes the rewritten query on, and sends the reply back through a {@link Reverter}.
 *
 * Cost: a query no rule matches costs one small object and the rules' string compares; the
 * rewritten query is encoded once, and its reply is copied (or decoded) once to be reverted.
 */
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { clientWrote, Flags, nextOrFailure, PluginError, Rcode, replyTo, Request } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, ResponseWriter } from '@foghorn/core';
import { encodeName, QueryEdit } from './query.js';
import type { ResponseRule } from './response.js';
import { Reverter } from './reverter.js';
import type { Rule } from './rules.js';

const CLASS_IN = 1;

export class Rewrite implements Handler {
  readonly name = 'rewrite';

  constructor(
    readonly rules: readonly Rule[],
    private readonly log: Logger,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const query = new QueryEdit(req);
    let responses: ResponseRule[] | undefined;
    for (const rule of this.rules) {
      const before = query.name;
      const got = rule.rewrite(query);
      if (got === null) continue;
      if (query.name !== before && query.nameInvalid) {
        throw new PluginError(`invalid name after rewrite: ${query.name}`, { rcode: Rcode.SERVFAIL });
      }
      responses = responses === undefined ? got.slice() : responses.concat(got);
      if (rule.mode === 'stop') break;
    }
    if (responses === undefined) return nextOrFailure(this.name, this.next, req, w);

    let rewritten: Request;
    try {
      rewritten = query.request();
    } catch (error) {
      // Bytes the listener's own reader refuses (too many additional records with an added OPT).
      throw new PluginError(`rewrite: ${error instanceof Error ? error.message : String(error)}`, { rcode: Rcode.SERVFAIL });
    }
    const reverter = new Reverter(w, req, query.qtype, responses, (name, qtype) => this.lookup(rewritten, name, qtype), this.log);
    let result: HandlerResult;
    try {
      result = nextOrFailure(this.name, this.next, rewritten, reverter);
    } catch (error) {
      return this.failed(req, reverter, error);
    }
    if (typeof result === 'number' && reverter.pending === undefined) return this.finish(req, reverter, result);
    return Promise.resolve(result).then(
      async (rcode) => {
        const written = this.finish(req, reverter, rcode);
        await reverter.pending;
        return written;
      },
      async (error: unknown) => {
        const rcode = this.failed(req, reverter, error);
        await reverter.pending;
        return rcode;
      },
    );
  }

  /**
   * The next plugins returned without writing: write their rcode here, through the reverter, so
   * rcode rules apply and the client sees its question (the server's own reply would bypass both).
   */
  private finish(req: Request, reverter: Reverter, rcode: number): number {
    if (clientWrote(rcode) || reverter.written) return rcode;
    reverter.write(replyTo(req, rcode));
    return Rcode.NOERROR;
  }

  private failed(req: Request, reverter: Reverter, error: unknown): never {
    if (error instanceof PluginError && !clientWrote(error.rcode) && !reverter.written) reverter.write(replyTo(req, error.rcode));
    throw error;
  }

  /**
   * A cname rule's lookup of the new target: a fresh query through the plugins after rewrite.
   * CoreDNS sends it through the whole server again; here it starts below rewrite, so the
   * rewrite rules are not applied to it twice.
   */
  private async lookup(from: Request, name: string, qtype: number): Promise<Packet | undefined> {
    const labels = encodeName(name);
    if (labels === undefined) throw new Error(`invalid name after rewrite: ${name}`);
    const wire = Buffer.alloc(12 + labels.length + 4);
    wire.writeUInt16BE(from.id, 0);
    wire.writeUInt16BE(Flags.RD, 2);
    wire.writeUInt16BE(1, 4);
    labels.copy(wire, 12);
    wire.writeUInt16BE(qtype, 12 + labels.length);
    wire.writeUInt16BE(CLASS_IN, 14 + labels.length);
    const req = Request.fromWire(wire, from.transport, from.remoteAddress, from.remotePort);
    req.zone = from.zone;
    req.server = from.server;
    let reply: Packet | undefined;
    const capture: ResponseWriter = {
      write(msg) {
        reply = msg;
        return 0;
      },
      writeWire(bytes) {
        reply = dnsPacket.decode(bytes);
        return bytes.length;
      },
    };
    await nextOrFailure(this.name, this.next, req, capture);
    return reply;
  }
}
