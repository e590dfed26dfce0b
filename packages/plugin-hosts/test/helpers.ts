/** Shared by the hosts tests: a marker plugin for "passed to next", reverse names. */
import { Flags, replyTo } from '@foghorn/core';
import type { Request, ResponseWriter } from '@foghorn/core';
import { formatIp, parseIp } from '@foghorn/core/wire';
import { directivesOf, startServer, testPlugin } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import hosts from '@foghorn/plugin-hosts';

type After = { after(fn: () => void | Promise<void>): void };

/** The plugin after hosts: answers TXT "next" so a test can see the query was passed on. */
export const nextMarker = testPlugin('next', () => ({
  name: 'next',
  serveDNS(req: Request, w: ResponseWriter): number {
    const reply = replyTo(req);
    reply.flags |= Flags.AA;
    reply.answers = [{ type: 'TXT', name: req.qname, class: 'IN', ttl: 0, data: 'next' }];
    w.write(reply);
    return 0;
  },
}));

/** True when the reply came from the plugin after hosts. */
export function passedOn(reply: Reply): boolean {
  return reply.answers?.length === 1 && reply.answers[0]!.type === 'TXT';
}

/** A server whose block body is `body`, with hosts and the marker after it. */
export async function serveHosts(t: After, body: string, key = '.'): Promise<TestServer> {
  const server = await startServer(`${key}:0 {\n bind 127.0.0.1\n ${body}\n next\n}\n`, { directives: directivesOf(bind, hosts, nextMarker) });
  t.after(() => server.close());
  return server;
}

/** The reverse name of an address: `10.0.0.1` → `1.0.0.10.in-addr.arpa`. */
export function reverseName(address: string): string {
  const ip = parseIp(address)!;
  if (formatIp(ip).includes('.')) return `${formatIp(ip).split('.').reverse().join('.')}.in-addr.arpa`;
  const nibbles = [...ip].flatMap((byte) => [(byte >> 4).toString(16), (byte & 0xf).toString(16)]);
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}
