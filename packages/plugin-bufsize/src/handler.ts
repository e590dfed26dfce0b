/** The *bufsize* handler: lowers the advertised EDNS UDP size, then passes the query on. */
import { nextOrFailure } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';

/** Lowers the query's advertised UDP size, then passes it on. */
export class Bufsize implements Handler {
  readonly name = 'bufsize';

  constructor(
    private readonly size: number,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.limitUdpSize(this.size);
    return nextOrFailure(this.name, this.next, req, w);
  }
}

