import { hostname } from 'node:os';
import { CLASS_CH, nextOrFailure, Rcode, replyTo, TYPE_TXT } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import type { Answer } from 'dns-packet';
import { trim } from './setup.js';
import type { ChaosOptions } from './setup.js';


/** Answers CH TXT queries for the server's version, authors and host name (CoreDNS's chaos.go). */
export class Chaos implements Handler {
  readonly name = 'chaos';

  constructor(
    private readonly options: ChaosOptions,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (req.qclass !== CLASS_CH || req.qtype !== TYPE_TXT) return nextOrFailure(this.name, this.next, req, w);
    let texts: readonly Buffer[];
    switch (req.qname) {
      case 'version.bind.':
      case 'version.server.':
        texts = [this.options.version];
        break;
      case 'authors.bind.':
        texts = shuffled(this.options.authors);
        break;
      case 'hostname.bind.':
      case 'id.server.':
        // Read per query, as CoreDNS's os.Hostname(): the host may be renamed while serving.
        texts = [trim(hostname() || 'localhost')];
        break;
      default:
        return nextOrFailure(this.name, this.next, req, w);
    }
    const reply = replyTo(req);
    // One TXT record per text; the owner is the name as the client wrote it (state.QName()).
    reply.answers = texts.map((text): Answer => ({ type: 'TXT', name: req.name, class: 'CH', ttl: 0, data: [text] }));
    w.write(reply);
    return Rcode.NOERROR;
  }
}

/** A random permutation, as CoreDNS's `rand.Perm` over the authors for every query. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
