import { Flags, MAX_NAME_LENGTH, Rcode, replyTo } from '@foghorn/core';
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
    // `_udp.` makes a name of 251 octets or more longer than 255 (RFC 1035 §2.3.4): CoreDNS then
    // fails to pack the reply and sends nothing; the SRV record is left out instead. The question
    // is never compressed, so its wire length is what it spans.
    reply.additionals = req.questionEnd - 16 + srvName.length - req.qname.length > MAX_NAME_LENGTH ? [address] : [address, srv];
    w.write(reply);
    return Rcode.NOERROR;
  }
}
