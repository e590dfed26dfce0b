import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { hostname } from 'node:os';
import { once } from 'node:events';
import { createLogger } from '@foghorn/core';
import { Registry } from 'prom-client';
import { directivesOf, freeTcpPort, hasTool, metric, query, requireFixture, startDnstapCollector, startServer, upstreamFor, answering, eventually } from '@foghorn/testkit';
import type { DnstapRecord } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import dnstap from '../src/index.js';
import { Dialer } from '../src/output.js';
import { TapSink } from '../src/sink.js';
import { createDnstapMetrics } from '../src/metrics.js';

const directives = directivesOf(bind, dnstap, forward, whoami);

function types(records: readonly DnstapRecord[]): string[] {
  return records.map((record) => record.message.type);
}

test('client queries and responses reach a real collector over a unix socket, full, with identity and version', async (t) => {
  const collector = await startDnstapCollector();
  t.after(() => collector.close());
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap ${collector.endpoint} full {\n  identity dns-1\n  version v9\n }\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  await query({ port: server.port() }, 'example.org', 'A');
  await query({ port: server.port() }, 'example.org', 'AAAA', { transport: 'tcp' });
  const records = await collector.until((r) => r.length === 4);
  assert.deepEqual(types(records), ['CLIENT_QUERY', 'CLIENT_RESPONSE', 'CLIENT_QUERY', 'CLIENT_RESPONSE']);
  for (const record of records) {
    assert.equal(record.type, 'MESSAGE');
    assert.equal(record.identity, 'dns-1');
    assert.equal(record.version, 'v9');
    assert.equal(record.message.socket_family, 'INET');
    assert.equal(record.message.query_address, '127.0.0.1');
    assert.ok((record.message.query_port ?? 0) > 0);
    assert.equal(record.message.response_address, undefined);
  }
  const [udpQuery, udpResponse, tcpQuery, tcpResponse] = records as [DnstapRecord, DnstapRecord, DnstapRecord, DnstapRecord];
  assert.deepEqual([udpQuery.message.socket_protocol, tcpQuery.message.socket_protocol], ['UDP', 'TCP']);
  assert.equal(udpQuery.message.query_port, udpResponse.message.query_port);
  assert.match(udpQuery.message.query_message ?? '', /;example\.org\.\tIN\tA\n/);
  assert.equal(udpQuery.message.response_message, undefined);
  // whoami's answer, as the client got it.
  assert.match(udpResponse.message.response_message ?? '', /flags: qr aa rd/);
  assert.match(udpResponse.message.response_message ?? '', /example\.org\.\t0\tIN\tA\t127\.0\.0\.1/);
  assert.match(tcpResponse.message.response_message ?? '', /_tcp\.example\.org\.\t0\tIN\tSRV/);
  // The response carries the query's time and its own, a moment later.
  const queried = udpResponse.message.query_time!.getTime();
  const responded = udpResponse.message.response_time!.getTime();
  assert.equal(queried, udpQuery.message.query_time!.getTime());
  assert.ok(responded >= queried && responded - queried < 1000, `${queried} then ${responded}`);
  assert.ok(Math.abs(queried - Date.now()) < 10_000, 'query_time is wall-clock time');
});

test('without full the messages carry no DNS bytes; identity defaults to the host name, version to Foghorn', async (t) => {
  const collector = await startDnstapCollector({ tcp: {} });
  t.after(() => collector.close());
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap ${collector.endpoint}\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  await query({ port: server.port() }, 'example.org', 'A');
  const records = await collector.until((r) => r.length === 2);
  assert.deepEqual(types(records), ['CLIENT_QUERY', 'CLIENT_RESPONSE']);
  for (const record of records) {
    assert.equal(record.message.query_message, undefined);
    assert.equal(record.message.response_message, undefined);
    assert.equal(record.identity, hostname());
    assert.match(record.version ?? '', /^Foghorn-\d/);
  }
});

test('forward logs FORWARDER_QUERY and FORWARDER_RESPONSE to the dnstap sinks of its block', async (t) => {
  const upstream = await upstreamFor(t, answering);
  const collector = await startDnstapCollector();
  t.after(() => collector.close());
  const [upstreamHost, upstreamPort] = upstream.address.split(':');
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n dnstap ${collector.endpoint} full\n forward . ${upstream.address}\n}\n`, { directives });
  t.after(() => server.close());
  await query({ port: server.port() }, 'www.example.net', 'A');
  const records = await collector.until((r) => r.length === 4);
  assert.deepEqual(types(records), ['CLIENT_QUERY', 'FORWARDER_QUERY', 'FORWARDER_RESPONSE', 'CLIENT_RESPONSE']);
  const [, fq, fr] = records as [DnstapRecord, DnstapRecord, DnstapRecord];
  for (const record of [fq, fr]) {
    assert.equal(record.message.socket_protocol, 'UDP');
    assert.equal(record.message.response_address, upstreamHost);
    assert.equal(record.message.response_port, Number(upstreamPort));
    // The querier's end is Foghorn's own socket to the upstream.
    assert.equal(record.message.query_address, '127.0.0.1');
    assert.ok((record.message.query_port ?? 0) > 0);
  }
  assert.match(fq.message.query_message ?? '', /;www\.example\.net\.\tIN\tA/);
  assert.match(fr.message.response_message ?? '', /www\.example\.net\.\t\d+\tIN\tA\t192\.0\.2\.1/);
  assert.ok(fr.message.response_time! >= fq.message.query_time!);
});

test('a collector that goes away gets what was queued meanwhile once it is back, and later messages too', async (t) => {
  const first = await startDnstapCollector();
  t.after(() => first.close());
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap ${first.endpoint}\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  await query({ port: server.port() }, 'one.example.org', 'A');
  await first.until((r) => r.length === 2);
  assert.equal((await first.stop()).length, 2);
  // Answers never wait for the collector.
  const started = Date.now();
  for (const name of ['two', 'three']) await query({ port: server.port() }, `${name}.example.org`, 'A');
  assert.ok(Date.now() - started < 1000);
  await eventually(() => server.lines.some((line) => line.includes('[WARNING] plugin/dnstap: Lost the dnstap endpoint')), 3000, 'the lost connection warning');
  const second = await startDnstapCollector({ path: first.path });
  t.after(() => second.close());
  await query({ port: server.port() }, 'four.example.org', 'A');
  const records = await second.until((r) => r.length === 6, 15_000);
  assert.deepEqual(types(records), ['CLIENT_QUERY', 'CLIENT_RESPONSE', 'CLIENT_QUERY', 'CLIENT_RESPONSE', 'CLIENT_QUERY', 'CLIENT_RESPONSE']);
  assert.equal(second.connections(), 1);
  assert.ok(server.lines.some((line) => line.includes('[INFO] plugin/dnstap: Connected to dnstap endpoint')));
  assert.equal(await metric(server, 'coredns_dnstap_dropped_total'), 0);
});

test('no collector at startup is logged as CoreDNS logs it, and queries are answered', async (t) => {
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap /nonexistent/dnstap.sock\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  await eventually(() => server.lines.includes('[ERROR] plugin/dnstap: No connection to dnstap endpoint: dial unix /nonexistent/dnstap.sock: connect: no such file or directory'));
});

test('a collector that never finishes the handshake holds up no query', async (t) => {
  const mute = net.createServer((socket) => socket.on('data', () => {}));
  mute.listen(0, '127.0.0.1');
  await once(mute, 'listening');
  t.after(() => mute.close());
  const port = (mute.address() as net.AddressInfo).port;
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap tcp://127.0.0.1:${port} full\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  const started = Date.now();
  for (let i = 0; i < 20; i++) assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  assert.ok(Date.now() - started < 2000);
});

test('a full queue drops messages and counts them instead of blocking', async () => {
  const registry = new Registry();
  const metrics = createDnstapMetrics(registry);
  const dropped = metrics.dropped.labels('unix:///nonexistent');
  const lines: string[] = [];
  const log = createLogger((line) => lines.push(line)).forPlugin('dnstap');
  const output = new Dialer({ endpoint: { proto: 'unix', address: '/nonexistent' }, maxQueued: 10, writeBufferBytes: 1 << 20, skipVerify: false, log });
  const sink = new TapSink({ full: false, identity: 'x', version: 'y', extra: '', endpoint: 'unix:///nonexistent' }, output, (n) => dropped.inc(n), log);
  sink.start();
  for (let i = 0; i < 25; i++) sink.tap({ type: 5, transport: 'udp', queryAddress: '192.0.2.1', queryPort: 53, queryTime: i });
  sink.flush();
  assert.equal((await registry.getSingleMetric('coredns_dnstap_dropped_total')!.get()).values[0]!.value, 16);
  await sink.close();
  assert.ok(lines.includes('[WARNING] plugin/dnstap: Dropped dnstap messages: 16'), lines.join('\n'));
});

test('listen: a collector that connects to Foghorn gets the messages from its handshake on', async (t) => {
  requireFixture(hasTool('socat', ['-V']), 'socat');
  const collector = await startDnstapCollector();
  t.after(() => collector.close());
  const port = await freeTcpPort();
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n dnstap listen tcp://127.0.0.1:${port} full\n whoami\n}\n`, { directives });
  t.after(() => server.close());
  // Before any collector connects nothing waits for the messages (the query is answered); they
  // may still be in the bounded queue when one connects, so the checks below look for their own.
  await query({ port: server.port() }, 'before.example.org', 'A');
  // socat dials Foghorn's listener and the collector, and relays the handshake both ways.
  const relay = spawn('socat', [`TCP:127.0.0.1:${port}`, `UNIX-CONNECT:${collector.path}`], { stdio: 'ignore' });
  t.after(() => relay.kill());
  await eventually(() => collector.connections() === 1, 3000, 'socat to connect');
  await eventually(async () => {
    await query({ port: server.port() }, 'example.org', 'A');
    return (await collector.records()).some((r) => /^example\.org\.\t0\tIN\tA/m.test(r.message.response_message ?? ''));
  }, 5000, 'messages through the listener');
  const records = (await collector.records()).filter((r) => /^;example\.org\.\tIN\tA/m.test(r.message.query_message ?? r.message.response_message ?? ''));
  assert.equal(records[0]!.message.type, 'CLIENT_QUERY');
  assert.match(records[1]!.message.response_message ?? '', /example\.org\.\t0\tIN\tA\t127\.0\.0\.1/);
});
