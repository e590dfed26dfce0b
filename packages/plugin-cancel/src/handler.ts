/**
 * The *cancel* handler: gives the query a deadline and passes it on. Go's version makes a
 * context with a timer per query; here the deadline is a number on the request
 * (`Request.deadline`), read only by plugins that wait, so a query answered synchronously costs
 * one field write (and the clock read that log or prometheus share).
 */
import { nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';

export class Cancel implements Handler {
  readonly name = 'cancel';

  constructor(
    /** How long after its start the query is given up, in ms. */
    private readonly timeoutMs: number,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.cancelAfter(this.timeoutMs);
    return nextOrFailure(this.name, this.next, req, w);
  }
}
