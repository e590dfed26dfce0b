import { Flags, Rcode, replyTo } from '@foghorn/core';
import type { Handler, Request, ResponseWriter } from '@foghorn/core';
import type { Answer, StringAnswer } from 'dns-packet';

/** The whoami handler: the last link of a chain, it never calls a next handler. */
export class Whoami implements Handler {
  readonly name = 'whoami';

  serveDNS(req: Request, w: ResponseWriter): number {
    const reply = replyTo(req);
    reply.flags |= Flags.AA;
    const klass = req.class as NonNullable<StringAnswer['class']>;
    const address: Answer =
      req.family === 'IPv6'
        ? { type: 'AAAA', name: req.qname, class: klass, ttl: 0, data: req.remoteAddress }
        : { type: 'A', name: req.qname, class: klass, ttl: 0, data: req.remoteAddress };
    // CoreDNS names the SRV record `_<proto>.<qname>`, and `_<proto>.` for the root.
    const srvName = req.qname === '.' ? `_${req.transport}.` : `_${req.transport}.${req.qname}`;
    const srv: Answer = {
      type: 'SRV',
      name: srvName,
      class: klass,
      ttl: 0,
      data: { priority: 0, weight: 0, port: req.remotePort, target: '.' },
    };
    reply.additionals = [address, srv];
    w.write(reply);
    return Rcode.NOERROR;
  }
}
