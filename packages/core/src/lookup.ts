/**
 * A plugin's own query through the rest of its chain: CoreDNS's `upstream.Lookup`, which
 * *rewrite*'s cname rule and *template*'s CNAME answers use to fill in the target's records.
 */
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import * as types from 'dns-packet/types.js';
import { nextOrFailure } from './plugin.js';
import type { Handler } from './plugin.js';
import { Request } from './request.js';
import { Flags } from './constants.js';
import type { ResponseWriter } from './response.js';

/**
 * Asks `next` for `name` and `qtype` (class IN, RD set) on behalf of the query `from`, from its
 * client, over its transport, in its zone, and resolves with the reply: decoded when the plugin
 * wrote wire bytes, undefined when nothing was written. Rejects when `next` is null or fails.
 *
 * CoreDNS sends the lookup through the whole server again; here it goes to the plugins after
 * the caller, so the caller does not see its own lookup.
 */
export async function lookupVia(next: Handler | null, caller: string, from: Request, name: string, qtype: number): Promise<Packet | undefined> {
  const wire = dnsPacket.encode({
    type: 'query',
    id: from.id,
    flags: Flags.RD,
    // dns-packet's own name for the type (`UNKNOWN_65534`) is the one it can encode back.
    questions: [{ name, type: types.toString(qtype) as never, class: 'IN' }],
  });
  const req = Request.fromWire(wire, from.transport, from.remoteAddress, from.remotePort);
  req.zone = from.zone;
  req.server = from.server;
  // The lookup is part of the query: it gives up when the query does (CoreDNS passes its context).
  req.deadline = from.deadline;
  req.metadata = from.metadata;
  let reply: Packet | undefined;
  const capture: ResponseWriter = {
    write(msg) {
      reply = msg;
      return 0;
    },
    writeWire(bytes) {
      reply = dnsPacket.decode(bytes);
      return bytes.length;
    },
  };
  await nextOrFailure(caller, next, req, capture);
  return reply;
}
