/**
 * The server of switches.test.ts, in a process of its own because core reads FOGHORN_DISABLE once,
 * when it loads: `log`, then `probe` (below), then `whoami`, on 127.0.0.1. Prints `port N` once
 * it listens, and the log lines after it.
 *
 * `probe` answers two TXT questions about how the query reached it:
 * - `caller.test.`: the function that called its handler, the chain link: a generated link
 *   (`link7`) or the shared one (`NamedLink.serveDNS`);
 * - `order.test.`: it writes its reply, then at once sends `after` to the client from a socket of
 *   its own. The reply arrives first when it left as it was written; second when the listener
 *   held it to the end of the event loop's turn (the UDP outbox).
 */
import dgram from 'node:dgram';
import { definePlugin, nextOrFailure, replyTo, TYPE_TXT } from '@foghorn/core';
import { Server } from '@foghorn/core/server';
import bind from '@foghorn/plugin-bind';
import log from '@foghorn/plugin-log';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf } from '@foghorn/testkit';

// An IP literal needs no lookup: the datagram leaves in the send call, as the listener's do.
const side = dgram.createSocket({ type: 'udp4', lookup: ((address: string, _family: number, callback: (e: null, a: string, f: number) => void) => callback(null, address, 4)) as never });

const probe = definePlugin({
  name: 'probe',
  setup(c) {
    c.next();
    c.addHandler((next) => ({
      name: 'probe',
      serveDNS(req, w) {
        if (req.qtype !== TYPE_TXT) return nextOrFailure('probe', next, req, w);
        const reply = replyTo(req);
        if (req.qname === 'caller.test.') {
          const caller = /^\s+at (\S+)/.exec(new Error().stack?.split('\n')[2] ?? '')?.[1] ?? '';
          reply.answers = [{ type: 'TXT', name: req.name, ttl: 0, data: caller }];
          w.write(reply);
          return 0;
        }
        reply.answers = [{ type: 'TXT', name: req.name, ttl: 0, data: 'reply' }];
        w.write(reply);
        side.send('after', req.remotePort, req.remoteAddress);
        return 0;
      },
    }));
  },
});

const server = new Server({
  directives: directivesOf(bind, log, probe, whoami),
  loadCorefile: () => ({ path: 'Corefile', contents: '.:0 {\n    bind 127.0.0.1\n    log\n    probe\n    whoami\n}\n' }),
});
await server.start();
console.log(`port ${server.addresses[0]!.port}`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
