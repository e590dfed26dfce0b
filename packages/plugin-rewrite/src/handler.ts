/**
 * The rewrite handler (CoreDNS's plugin/rewrite/rewrite.go): runs the rules in order on the
 * query, passes the rewritten query on, and sends the reply back through a {@link Reverter}.
 *
 * Cost: a query no rule matches costs one small object and the rules' string compares; the
 * rewritten query is encoded once, and its reply is copied (or decoded) once to be reverted.
 */
import { clientWrote, errorMessage, lookupVia, nextOrFailure, PluginError, Rcode, replyTo } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import { QueryEdit } from './query.js';
import type { ResponseRule } from './response.js';
import { Reverter } from './reverter.js';
import type { Rule } from './rules.js';

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
    // An edns0 rule that did not apply may still have given the query an OPT record, as in CoreDNS.
    if (responses === undefined && !query.changed) return nextOrFailure(this.name, this.next, req, w);

    let rewritten: Request;
    try {
      rewritten = query.request();
    } catch (error) {
      // Bytes the listener's own reader refuses (too many additional records with an added OPT).
      throw new PluginError(`rewrite: ${errorMessage(error)}`, { rcode: Rcode.SERVFAIL });
    }
    const reverter = new Reverter(w, req, query.qtype, responses ?? [], (name, qtype) => lookupVia(this.next, this.name, rewritten, name, qtype), this.log);
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
        try {
          this.failed(req, reverter, error);
        } finally {
          await reverter.pending;
        }
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
}
