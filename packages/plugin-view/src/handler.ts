/**
 * The *view* handler: CoreDNS's `View.ServeDNS`, which only passes the query on. The view itself
 * is applied before the chain: core asks the block's view (setup.ts) whether the block serves a
 * query.
 */
import { nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';

export class ViewHandler implements Handler {
  readonly name = 'view';

  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    return nextOrFailure(this.name, this.next, req, w);
  }
}
