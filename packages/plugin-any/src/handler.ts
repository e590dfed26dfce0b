import { nextOrFailure, Rcode, replyTo, TYPE_ANY } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { rfc8482Hinfo } from '@foghorn/core/wire';


/** Answers QTYPE=ANY with RFC 8482's one HINFO record; every other query goes on down the chain. */
export class Any implements Handler {
  readonly name = 'any';

  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (req.qtype !== TYPE_ANY) return nextOrFailure(this.name, this.next, req, w);
    // As CoreDNS's any.go: a plain SetReply (no AA), the owner name as the client wrote it.
    const reply = replyTo(req);
    reply.answers = [rfc8482Hinfo(req.name)];
    w.write(reply);
    return Rcode.NOERROR;
  }
}
