/**
 * The *metadata* handler: CoreDNS's `Metadata.ServeDNS`, which only passes the query on. The
 * work happens before the chain, where core asks the block's collector (collect.ts) for each
 * query's metadata.
 */
import { nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';

export class MetadataHandler implements Handler {
  readonly name = 'metadata';

  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    return nextOrFailure(this.name, this.next, req, w);
  }
}
