/**
 * The *nsid* handler (CoreDNS's `plugin/nsid/nsid.go`): when a query carries the NSID option
 * (RFC 5001 §2.1), the reply written below gets an NSID option with this server's identifier.
 *
 * Cost: the listener already read the query's OPT options once (`Request.ednsOptions`, null for
 * the many queries without any), so a query without NSID costs one field read and a call; only
 * a query that asks gets a writer of its own, and its reply a copy with the option in it.
 */
import { Buffer } from 'node:buffer';
import { nextOrFailure } from '@foghorn/core';
import type { EdnsOption, Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { replyOpt, withReplyOption } from '@foghorn/core/wire';
import type { OptAnswer, Packet } from 'dns-packet';

/** RFC 5001 §2.3: the NSID option code. */
export const EDNS_OPTION_NSID = 3;

export class Nsid implements Handler {
  readonly name = 'nsid';
  /** The option every reply gets: the identifier's bytes as they are (dig shows them in hex). */
  private readonly option: EdnsOption;

  constructor(
    data: string,
    private readonly next: Handler | null,
  ) {
    this.option = { code: EDNS_OPTION_NSID, data: Buffer.from(data, 'utf8') };
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    const options = req.ednsOptions;
    if (options !== null && asksNsid(options)) return nextOrFailure(this.name, this.next, req, new NsidWriter(w, req, this.option));
    return nextOrFailure(this.name, this.next, req, w);
  }
}

function asksNsid(options: readonly EdnsOption[]): boolean {
  for (const option of options) if (option.code === EDNS_OPTION_NSID) return true;
  return false;
}

/**
 * Adds the NSID option to what is written through it: into the reply's OPT record, replacing an
 * NSID already there (a forwarded reply's), or in a new OPT echoing the client's size and DO bit
 * when the reply has none (CoreDNS's `SetEdns0` then the scrub). The writer's message is never
 * changed: a plugin may keep and write it again.
 */
class NsidWriter implements ResponseWriter {
  constructor(
    private readonly inner: ResponseWriter,
    private readonly req: Request,
    private readonly option: EdnsOption,
  ) {}

  write(msg: Packet): number {
    const additionals = msg.additionals ?? [];
    const at = additionals.findIndex((rr) => rr.type === 'OPT');
    const withNsid = additionals.slice();
    if (at < 0) withNsid.push(replyOpt(this.req, { options: [this.option] }));
    else withNsid[at] = withOption(additionals[at] as OptAnswer, this.option);
    return this.inner.write({ ...msg, additionals: withNsid });
  }

  writeWire(wire: Buffer, size?: number): number {
    const withNsid = withReplyOption(wire, this.option, this.req.udpSize, this.req.dnssecOk) ?? wire;
    return this.inner.writeWire(withNsid, size);
  }

  drained(): Promise<void> {
    return this.inner.drained?.() ?? Promise.resolve();
  }
}

/** A copy of `opt` whose NSID options carry `option`'s data, or with `option` appended. */
function withOption(opt: OptAnswer, option: EdnsOption): OptAnswer {
  const options = (opt.options ?? []) as unknown as EdnsOption[];
  const replaced = options.map((o) => (o.code === option.code ? option : o));
  return { ...opt, options: (replaced.some((o) => o === option) ? replaced : [...replaced, option]) as unknown as OptAnswer['options'] };
}
