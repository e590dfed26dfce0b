import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Packet, SrvAnswer } from 'dns-packet';
import { Flags, PluginError, Rcode, replyTo } from '@foghorn/core';
import type { Handler, Request, ResponseWriter } from '@foghorn/core';
import { directivesOf, makeQuery, rcodeOf, startServer, tcpExchange, testPlugin, udpExchange } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createLogPlugin } from '@foghorn/plugin-log';

const SOA = {
  type: 'SOA',
  name: 'example.org.',
  ttl: 60,
  data: { mname: 'ns.example.org.', rname: 'host.example.org.', serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 60 },
} as const;

/**
 * A test handler that answers by the first label: `nx` NXDOMAIN, `nodata` NOERROR with a SOA,
 * `refused` returns REFUSED without writing, `fail` throws a PluginError, `slow` answers after a
 * turn of the event loop; anything else goes on to whoami.
 */
class Outcomes implements Handler {
  readonly name = 'outcomes';
  constructor(private readonly next: Handler | null) {}

  serveDNS(req: Request, w: ResponseWriter): number | Promise<number> {
    const label = req.qname.split('.')[0];
    switch (label) {
      case 'nx':
      case 'nodata': {
        const reply = replyTo(req, label === 'nx' ? Rcode.NXDOMAIN : Rcode.NOERROR);
        reply.flags |= Flags.AA;
        reply.authorities = [SOA];
        w.write(reply);
        return label === 'nx' ? Rcode.NXDOMAIN : Rcode.NOERROR;
      }
      case 'wire': {
        // Written as bytes, as a cache hit is.
        const reply = replyTo(req, Rcode.NXDOMAIN);
        reply.authorities = [SOA];
        w.writeWire(dnsPacket.encode(reply));
        return Rcode.NXDOMAIN;
      }
      case 'refused':
        return Rcode.REFUSED;
      case 'fail':
        throw new PluginError('plugin/outcomes: upstream went away');
      case 'slow':
        return new Promise((resolve) => setImmediate(() => resolve(this.next!.serveDNS(req, w) as number)));
      default:
        return this.next!.serveDNS(req, w);
    }
  }
}

const outcomes = testPlugin('outcomes', (next) => new Outcomes(next));

interface Logged {
  readonly server: TestServer;
  readonly lines: string[];
}

async function start(t: { after(fn: () => Promise<void>): void }, logLines: string): Promise<Logged> {
  const lines: string[] = [];
  const log = createLogPlugin({ sink: (line) => lines.push(line) });
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${logLines}\n outcomes\n whoami\n}\n`, {
    directives: directivesOf(bind, log, outcomes, whoami),
  });
  t.after(() => server.close());
  return { server, lines };
}

/** The common log format, split into its fields. */
const COMMON = /^\[INFO\] (\S+):(\d+) - (\d+) "(\S+) (\S+) (\S+) (udp|tcp) (\d+) (true|false) (\d+)" (\S+) (\S*) (\d+) (\d+(?:\.\d+)?)s$/;

function fields(line: string | undefined): Record<string, string> {
  const m = COMMON.exec(line ?? '');
  assert.ok(m, `not a common log line: ${line}`);
  const [, remote, port, id, type, klass, name, proto, size, dnssec, bufsize, rcode, rflags, rsize, duration] = m as unknown as string[];
  return { remote, port, id, type, klass, name, proto, size, dnssec, bufsize, rcode, rflags, rsize, duration } as Record<string, string>;
}

function srvPort(reply: Packet): string {
  const srv = reply.additionals?.find((rr) => rr.type === 'SRV') as SrvAnswer | undefined;
  return String(srv?.data.port);
}

test('a UDP query is logged in CoreDNS format, field by field', async (t) => {
  const { server, lines } = await start(t, 'log');
  const query = makeQuery('Example.ORG.', 'A', { id: 4242 });
  const wire = await udpExchange({ port: server.port() }, query);
  assert.ok(wire);
  const reply = dnsPacket.decode(wire);
  assert.equal(lines.length, 1);
  const f = fields(lines[0]);
  assert.equal(f.remote, '127.0.0.1');
  assert.equal(f.port, srvPort(reply));
  assert.equal(f.id, '4242');
  assert.equal(f.type, 'A');
  assert.equal(f.klass, 'IN');
  assert.equal(f.name, 'example.org.');
  assert.equal(f.proto, 'udp');
  assert.equal(f.size, String(query.length));
  assert.equal(f.dnssec, 'false');
  assert.equal(f.bufsize, '512');
  assert.equal(f.rcode, 'NOERROR');
  assert.equal(f.rflags, 'qr,aa,rd');
  assert.equal(f.rsize, String(wire.length));
  assert.ok(Number(f.duration) > 0 && Number(f.duration) < 1, f.duration);
});

test('a TCP query with EDNS and DO logs tcp, true, 65535 and the reply size before the OPT is added', async (t) => {
  const { server, lines } = await start(t, 'log');
  const query = makeQuery('example.org.', 'AAAA', { id: 7, udpSize: 4096, dnssecOk: true });
  const [wire] = await tcpExchange({ port: server.port() }, query);
  assert.ok(wire);
  const reply = dnsPacket.decode(wire);
  const f = fields(lines[0]);
  assert.equal(f.port, srvPort(reply));
  assert.equal(f.type, 'AAAA');
  assert.equal(f.proto, 'tcp');
  assert.equal(f.size, String(query.length));
  assert.equal(f.dnssec, 'true');
  assert.equal(f.bufsize, '65535');
  // whoami writes no OPT; the server's scrub adds the 11-byte OPT after the log measured the reply.
  assert.equal(f.rsize, String(wire.length - 11));
});

test('a UDP query with a larger EDNS size logs that size as bufsize', async (t) => {
  const { server, lines } = await start(t, 'log');
  await udpExchange({ port: server.port() }, makeQuery('example.org.', 'A', { udpSize: 1232 }));
  assert.equal(fields(lines[0]).bufsize, '1232');
});

test('a REFUSED nobody wrote is logged as the reply the server sends', async (t) => {
  const { server, lines } = await start(t, 'log');
  const wire = await udpExchange({ port: server.port() }, makeQuery('refused.example.org.', 'A', { id: 9 }));
  assert.ok(wire);
  assert.equal(rcodeOf(dnsPacket.decode(wire)), 'REFUSED');
  const f = fields(lines[0]);
  assert.equal(f.rcode, 'REFUSED');
  assert.equal(f.rflags, 'qr,rd');
  assert.equal(f.rsize, String(wire.length));
});

test('a synthesized reply to an EDNS query counts the OPT the server will add', async (t) => {
  const { server, lines } = await start(t, 'log');
  const wire = await udpExchange({ port: server.port() }, makeQuery('refused.example.org.', 'A', { udpSize: 1232 }));
  assert.ok(wire);
  assert.equal(fields(lines[0]).rsize, String(wire.length));
});

test('a thrown PluginError is logged as SERVFAIL and the client gets SERVFAIL', async (t) => {
  const { server, lines } = await start(t, 'log');
  const wire = await udpExchange({ port: server.port() }, makeQuery('fail.example.org.', 'A'));
  assert.ok(wire);
  assert.equal(rcodeOf(dnsPacket.decode(wire)), 'SERVFAIL');
  const f = fields(lines[0]);
  assert.equal(f.rcode, 'SERVFAIL');
  assert.equal(f.rsize, String(wire.length));
});

test('a reply written after the handler returned a promise is logged when it settles', async (t) => {
  const { server, lines } = await start(t, 'log');
  await udpExchange({ port: server.port() }, makeQuery('slow.example.org.', 'A'));
  const f = fields(lines[0]);
  assert.equal(f.name, 'slow.example.org.');
  assert.equal(f.rcode, 'NOERROR');
});

test('class denial logs NXDOMAIN and NODATA replies only', async (t) => {
  const { server, lines } = await start(t, 'log {\n  class denial\n }');
  const port = server.port();
  let wireSize = 0;
  for (const name of ['ok.example.org.', 'nx.example.org.', 'nodata.example.org.', 'refused.example.org.', 'wire.example.org.']) {
    wireSize = (await udpExchange({ port }, makeQuery(name, 'A')))?.length ?? 0;
  }
  assert.deepEqual(
    lines.map((line) => [fields(line).name, fields(line).rcode]),
    [
      ['nx.example.org.', 'NXDOMAIN'],
      ['nodata.example.org.', 'NOERROR'],
      ['wire.example.org.', 'NXDOMAIN'],
    ],
  );
  assert.equal(fields(lines[2]).rsize, String(wireSize));
});

test('class error logs REFUSED and SERVFAIL, and success logs answers', async (t) => {
  const { server, lines } = await start(t, 'log . "{name} {rcode}" {\n  class error success\n }');
  const port = server.port();
  for (const name of ['ok.example.org.', 'nx.example.org.', 'refused.example.org.', 'fail.example.org.']) {
    await udpExchange({ port }, makeQuery(name, 'A'));
  }
  assert.deepEqual(lines, [
    '[INFO] ok.example.org. NOERROR',
    '[INFO] refused.example.org. REFUSED',
    '[INFO] fail.example.org. SERVFAIL',
  ]);
});

test('only queries at or below a rule name are logged, whatever their case', async (t) => {
  const { server, lines } = await start(t, 'log Example.org "{name}"');
  const port = server.port();
  for (const name of ['example.org.', 'A.EXAMPLE.org.', 'example.net.', 'notexample.org.']) {
    await udpExchange({ port }, makeQuery(name, 'A'));
  }
  assert.deepEqual(lines, ['[INFO] example.org.', '[INFO] a.example.org.']);
});

test('the first matching rule wins, even when a later one is more specific', async (t) => {
  const { server, lines } = await start(t, 'log . "root {name}" {\n  class denial\n }\n log example.org "specific {name}"');
  const port = server.port();
  await udpExchange({ port }, makeQuery('www.example.org.', 'A'));
  await udpExchange({ port }, makeQuery('nx.example.org.', 'A'));
  assert.deepEqual(lines, ['[INFO] root nx.example.org.']);
});

test('every name of a multi-name rule gets the format', async (t) => {
  const { server, lines } = await start(t, 'log example.org example.net "{proto} {name}"');
  const port = server.port();
  await udpExchange({ port }, makeQuery('example.net.', 'A'));
  await tcpExchange({ port }, makeQuery('example.org.', 'A'));
  await udpExchange({ port }, makeQuery('example.com.', 'A'));
  assert.deepEqual(lines, ['[INFO] udp example.net.', '[INFO] tcp example.org.']);
});

test('log {combined} is a rule for the name {combined}. and logs nothing', async (t) => {
  const { server, lines } = await start(t, 'log {combined}');
  await udpExchange({ port: server.port() }, makeQuery('example.org.', 'A'));
  assert.deepEqual(lines, []);
});

test('log . {combined} adds the opcode, and macros expand inside a longer format', async (t) => {
  const { server, lines } = await start(t, 'log . "{combined} {/forward/upstream} 100%"');
  await udpExchange({ port: server.port() }, makeQuery('example.org.', 'A'));
  assert.match(lines[0] ?? '', /^\[INFO\] 127\.0\.0\.1:\d+ - \d+ "A IN example\.org\. udp \d+ false 512" NOERROR qr,aa,rd \d+ [\d.]+s "0" - 100%$/);
});
