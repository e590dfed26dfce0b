import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import dgram from 'node:dgram';
import { gunzipSync } from 'node:zlib';
import { PluginError, Rcode, replyTo, Request, timeBuckets } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { Server } from '@foghorn/core/server';
import { captureLog, directivesOf, holdTcpPort, httpGet, makeQuery, query, startServer, tcpExchange } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { Registry } from 'prom-client';
import prometheus, { metricsListeners } from '../src/index.js';
import { Prometheus } from '../src/handler.js';
import { createDnsMetrics, sizeBuckets } from '../src/metrics.js';

// ---------------------------------------------------------------------------------------------
// A tiny parser for the Prometheus text format (version 0.0.4), enough to check what we serve.

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Exposition {
  readonly help: Map<string, string>;
  readonly types: Map<string, string>;
  readonly samples: Sample[];
}

function parseExposition(text: string): Exposition {
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? help : types).set(meta[2]!, meta[3]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    assert.ok(head, `bad sample line: ${line}`);
    const name = head[1]!;
    let i = name.length;
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(i));
        assert.ok(label, `bad label in: ${line}`);
        i += label[0].length;
        let value = '';
        while (line[i] !== '"') {
          if (line[i] === '\\') {
            i++;
            value += line[i] === 'n' ? '\n' : line[i];
          } else value += line[i];
          i++;
        }
        i++;
        labels[label[1]!] = value;
        if (line[i] === ',') i++;
      }
      i++;
    }
    assert.equal(line[i], ' ', `no value separator in: ${line}`);
    const raw = line.slice(i + 1).split(' ')[0]!;
    samples.push({ name, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  return { help, types, samples };
}

/** Samples named `name` whose labels include `labels`. */
function select(expo: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return expo.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with `labels`. */
function value(expo: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = select(expo, name, labels);
  assert.equal(found.length, 1, `expected one ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0]!.value;
}

// ---------------------------------------------------------------------------------------------
// Scraping over real HTTP.

async function scrape(port: number): Promise<Exposition> {
  const reply = await httpGet(port, '/metrics');
  assert.equal(reply.status, 200);
  return parseExposition(reply.body.toString('utf8'));
}

/** The bound port of the only metrics listener of `server`. */
function metricsPort(server: Server): number {
  const [listener, ...others] = metricsListeners(server.registry);
  assert.ok(listener, 'no metrics listener');
  assert.equal(others.length, 0);
  assert.notEqual(listener.port, 0, 'metrics listener is closed');
  return listener.port;
}

/** A server with `corefile`, stopped after the test; `reload(text)` rewrites its Corefile. */
async function serve(t: { after(fn: () => Promise<void>): void }, corefile: string): Promise<TestServer> {
  const server = await startServer(corefile, { directives });
  t.after(() => server.close());
  return server;
}

const directives = directivesOf(bind, prometheus, whoami);

// ---------------------------------------------------------------------------------------------
// End to end: real DNS over UDP and TCP, real scrapes.

test('queries over UDP and TCP are counted with CoreDNS names, types, help, labels and buckets', async (t) => {
  const srv = await serve(t, 'example.org:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}');
  const dns = { port: srv.port() };
  const udpQueries = 5;
  const tcpQueries = 3;
  for (let i = 0; i < udpQueries; i++) await query(dns, 'www.example.org', 'A');
  for (let i = 0; i < tcpQueries; i++) await query(dns, 'example.org', 'AAAA', { transport: 'tcp' });
  await query(dns, 'example.org', 'HINFO'); // not a monitored type: `other`
  await query(dns, 'example.org', 'CAA'); // type 257, above the table of monitored types: `other`
  await query(dns, 'example.org', 'TXT', { dnssecOk: true });
  const expo = await scrape(metricsPort(srv.server));

  const want: Record<string, [type: string, help: string]> = {
    coredns_dns_requests_total: ['counter', 'Counter of DNS requests made per zone, protocol and family.'],
    coredns_dns_responses_total: ['counter', 'Counter of response status codes.'],
    coredns_dns_request_duration_seconds: ['histogram', 'Histogram of the time (in seconds) each request took per zone.'],
    coredns_dns_request_size_bytes: ['histogram', 'Size of the EDNS0 UDP buffer in bytes (64K for TCP) per zone and protocol.'],
    coredns_dns_response_size_bytes: ['histogram', 'Size of the returned response in bytes.'],
    coredns_dns_do_requests_total: ['counter', 'Counter of DNS requests with DO bit set per zone.'],
    coredns_plugin_enabled: ['gauge', 'A metric that indicates whether a plugin is enabled on per server and zone basis.'],
    coredns_build_info: ['gauge', "A metric with a constant '1' value labeled by version, revision, and goversion from which CoreDNS was built."],
    coredns_panics_total: ['counter', 'A metrics that counts the number of panics.'],
  };
  for (const [name, [type, help]] of Object.entries(want)) {
    assert.equal(expo.types.get(name), type, `TYPE of ${name}`);
    assert.equal(expo.help.get(name), help, `HELP of ${name}`);
  }

  const site = { server: 'dns://127.0.0.1:0', zone: 'example.org.', view: '' };
  const requests = select(expo, 'coredns_dns_requests_total');
  for (const s of requests) assert.deepEqual(Object.keys(s.labels).sort(), ['family', 'proto', 'server', 'type', 'view', 'zone']);
  assert.equal(value(expo, 'coredns_dns_requests_total', { ...site, proto: 'udp', family: '1', type: 'A' }), udpQueries);
  assert.equal(value(expo, 'coredns_dns_requests_total', { ...site, proto: 'tcp', family: '1', type: 'AAAA' }), tcpQueries);
  assert.equal(value(expo, 'coredns_dns_requests_total', { ...site, proto: 'udp', family: '1', type: 'other' }), 2);
  assert.equal(value(expo, 'coredns_dns_requests_total', { ...site, proto: 'udp', family: '1', type: 'TXT' }), 1);
  const total = udpQueries + tcpQueries + 3;

  assert.equal(value(expo, 'coredns_dns_responses_total', { ...site, rcode: 'NOERROR', plugin: 'whoami' }), total, 'whoami wrote every reply');
  assert.equal(value(expo, 'coredns_dns_do_requests_total', site), 1);

  const durationBounds = select(expo, 'coredns_dns_request_duration_seconds_bucket', site).map((s) => s.labels.le);
  assert.deepEqual(durationBounds, [...timeBuckets.map(String), '+Inf']);
  assert.deepEqual(durationBounds.slice(0, 3), ['0.00025', '0.0005', '0.001']);
  assert.equal(durationBounds[15], '8.192');
  assert.equal(value(expo, 'coredns_dns_request_duration_seconds_count', site), total);
  assert.equal(value(expo, 'coredns_dns_request_duration_seconds_bucket', { ...site, le: '+Inf' }), total);
  const cumulative = select(expo, 'coredns_dns_request_duration_seconds_bucket', site).map((s) => s.value);
  assert.deepEqual(cumulative, [...cumulative].sort((a, b) => a - b), 'buckets are cumulative');
  assert.ok(value(expo, 'coredns_dns_request_duration_seconds_sum', site) > 0);
  for (const s of select(expo, 'coredns_dns_request_duration_seconds_count')) assert.deepEqual(Object.keys(s.labels).sort(), ['server', 'view', 'zone']);

  const sizeBounds = ['0', '100', '200', '300', '400', '511', '1023', '2047', '4095', '8291', '16000', '32000', '48000', '64000', '+Inf'];
  assert.deepEqual(sizeBuckets.map(String), sizeBounds.slice(0, -1));
  for (const metric of ['coredns_dns_request_size_bytes', 'coredns_dns_response_size_bytes']) {
    assert.deepEqual(select(expo, `${metric}_bucket`, { ...site, proto: 'udp' }).map((s) => s.labels.le), sizeBounds);
    assert.equal(value(expo, `${metric}_count`, { ...site, proto: 'udp' }), udpQueries + 3);
    assert.equal(value(expo, `${metric}_count`, { ...site, proto: 'tcp' }), tcpQueries);
  }
  // The request size is the query's length on the wire.
  const udpRequestBytes =
    udpQueries * makeQuery('www.example.org', 'A').length + makeQuery('example.org', 'HINFO').length + makeQuery('example.org', 'CAA').length + makeQuery('example.org', 'TXT', { dnssecOk: true }).length;
  assert.equal(value(expo, 'coredns_dns_request_size_bytes_sum', { ...site, proto: 'udp' }), udpRequestBytes);
  assert.equal(value(expo, 'coredns_dns_request_size_bytes_bucket', { ...site, proto: 'udp', le: '100' }), udpQueries + 3);
  assert.ok(value(expo, 'coredns_dns_response_size_bytes_sum', { ...site, proto: 'tcp' }) > 0);

  // One row per handler of the block, labelled with its listener (bind included).
  for (const name of ['prometheus', 'whoami']) {
    assert.equal(value(expo, 'coredns_plugin_enabled', { server: 'dns://127.0.0.1:0', zone: 'example.org.', view: '', name }), 1, name);
  }
  assert.deepEqual(select(expo, 'coredns_plugin_enabled', { name: 'bind' }), [], 'bind adds no handler, so it has no row');
  const [buildInfo] = select(expo, 'coredns_build_info');
  assert.ok(buildInfo);
  assert.equal(buildInfo.value, 1);
  assert.deepEqual(Object.keys(buildInfo.labels).sort(), ['goversion', 'revision', 'version']);
  assert.match(buildInfo.labels.version ?? '', /^\d+\.\d+\.\d+/);
  assert.equal(value(expo, 'coredns_panics_total'), 0);
  assert.equal(expo.types.get('process_cpu_seconds_total'), 'counter', 'process metrics are exported too');
});

test('/metrics is the only path, and scrapes may ask for gzip', async (t) => {
  const srv = await serve(t, '.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}');
  const port = metricsPort(srv.server);
  const notFound = await httpGet(port, '/');
  assert.equal(notFound.status, 404);
  assert.equal(notFound.body.toString(), '404 page not found\n');
  assert.equal((await httpGet(port, '/metrics/')).status, 404);
  const zipped = await httpGet(port, '/metrics', { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(zipped.status, 200);
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.match(zipped.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
  assert.ok(parseExposition(gunzipSync(zipped.body).toString()).types.has('coredns_build_info'));
});

test('two server blocks naming one address share one listener, which exports both', async (t) => {
  const corefile = [
    'a.example:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}',
    'b.example:0 {\n bind 127.0.0.1\n metrics 127.0.0.1:0\n whoami\n}',
  ].join('\n');
  const metrics = { ...prometheus, name: 'metrics' };
  const srv = await startServer(corefile, { directives: directivesOf(bind, prometheus, metrics, whoami) });
  t.after(() => srv.close());
  await query({ port: srv.port('a.example.') }, 'a.example', 'A');
  await query({ port: srv.port('b.example.') }, 'x.b.example', 'A', { transport: 'tcp' });
  const expo = await scrape(metricsPort(srv.server));
  assert.equal(value(expo, 'coredns_dns_requests_total', { zone: 'a.example.', proto: 'udp' }), 1);
  assert.equal(value(expo, 'coredns_dns_requests_total', { zone: 'b.example.', proto: 'tcp' }), 1);
  assert.equal(value(expo, 'coredns_plugin_enabled', { zone: 'a.example.', name: 'prometheus' }), 1);
  assert.equal(value(expo, 'coredns_plugin_enabled', { zone: 'b.example.', name: 'metrics' }), 1);
  assert.deepEqual(srv.lines.filter((l) => l.includes('metrics handler')), []);
});

test('blocks naming different addresses get a listener each, all exporting the same registry', async (t) => {
  const corefile = [
    'a.example:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}',
    'b.example:0 {\n bind 127.0.0.1\n prometheus [::1]:0\n whoami\n}',
  ].join('\n');
  let srv;
  try {
    srv = await startServer(corefile, { directives });
  } catch (error) {
    t.skip(`no IPv6 loopback: ${(error as Error).message}`);
    return;
  }
  const server = srv;
  t.after(() => server.close());
  const listeners = metricsListeners(server.server.registry);
  assert.deepEqual(listeners.map((l) => l.address).sort(), ['127.0.0.1:0', '[::1]:0']);
  if (server.lines.some((l) => l.includes('Failed to start metrics handler'))) return t.skip('no IPv6 loopback');
  await query({ port: server.port('b.example.') }, 'b.example', 'A');
  const v4 = await scrape(listeners.find((l) => l.host === '127.0.0.1')!.port);
  assert.equal(value(v4, 'coredns_dns_requests_total', { zone: 'b.example.' }), 1);
});

test('a listen failure is logged and not fatal: DNS keeps answering', async (t) => {
  const { port: busy, close } = await holdTcpPort();
  t.after(close);
  const srv = await serve(t, `.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:${busy}\n whoami\n}`);
  assert.deepEqual(
    srv.lines.filter((l) => l.startsWith('[ERROR]')),
    [`[ERROR] plugin/prometheus: Failed to start metrics handler: listen tcp 127.0.0.1:${busy}: bind: address already in use`],
  );
  const reply = await query({ port: srv.port() }, 'example.org', 'A');
  assert.equal(reply.type, 'response');
});

test('stopping the server closes the metrics listener', async () => {
  const srv = await startServer('.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}', { directives });
  const port = metricsPort(srv.server);
  await srv.close();
  assert.equal(metricsListeners(srv.server.registry)[0]?.port, 0);
  await assert.rejects(httpGet(port, '/metrics'), /ECONNREFUSED/);
});

test('a failed start closes the metrics listener it opened', async (t) => {
  const squatter = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => squatter.bind(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
  const busy = squatter.address().port;
  const { logger } = captureLog();
  const server = new Server({
    directives,
    dnsPort: 0,
    logger,
    loadCorefile: () => ({ path: 'Corefile', contents: `.:${busy} {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}` }),
  });
  await assert.rejects(server.start(), /ListenPacket: listen udp 127\.0\.0\.1:\d+: bind: address already in use/);
  assert.equal(metricsListeners(server.registry)[0]?.port, 0);
});

// ---------------------------------------------------------------------------------------------
// Reloads: one registry, metric objects created once, the listener handed over.

test('metrics survive a reload: no "already registered" error, counters continue, the port is kept', async (t) => {
  const orgBlock = 'example.org:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}';
  const server = await serve(t, orgBlock);
  await query({ port: server.port('example.org.') }, 'example.org', 'A');
  await query({ port: server.port('example.org.') }, 'example.org', 'A');
  const portBefore = metricsPort(server.server);
  assert.equal(value(await scrape(portBefore), 'coredns_dns_requests_total', { zone: 'example.org.', type: 'A' }), 2);

  assert.equal(await server.reload(`${orgBlock}\nexample.net:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}`), true, server.lines.join('\n'));
  assert.deepEqual(server.lines.filter((l) => /already registered|ERROR/.test(l)), []);
  assert.equal(metricsPort(server.server), portBefore, 'a port-0 listener keeps its port across reloads');

  await query({ port: server.port('example.org.') }, 'example.org', 'A');
  await query({ port: server.port('example.net.') }, 'example.net', 'A');
  const expo = await scrape(portBefore);
  assert.equal(value(expo, 'coredns_dns_requests_total', { zone: 'example.org.', type: 'A' }), 3);
  assert.equal(value(expo, 'coredns_dns_requests_total', { zone: 'example.net.', type: 'A' }), 1);
  assert.equal(value(expo, 'coredns_plugin_enabled', { zone: 'example.net.', name: 'prometheus' }), 1);
  assert.equal(expo.types.get('coredns_dns_requests_total'), 'counter');
});

test('a reload that drops the plugin closes the listener and resets coredns_plugin_enabled', async (t) => {
  const server = await serve(t, '.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}');
  const port = metricsPort(server.server);
  assert.equal(await server.reload('.:0 {\n bind 127.0.0.1\n whoami\n}'), true);
  await assert.rejects(httpGet(port, '/metrics'), /ECONNREFUSED/);
  assert.deepEqual(await server.server.registry.getSingleMetric('coredns_plugin_enabled')?.get().then((m) => m.values), []);
});

test('a reload that fails after the restart hooks reopens the old listener (OnRestartFailed)', async (t) => {
  const squatter = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => squatter.bind(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
  const busy = squatter.address().port;
  const block = 'example.org:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}';
  const server = await serve(t, block);
  await query({ port: server.port('example.org.') }, 'example.org', 'A');
  const port = metricsPort(server.server);

  assert.equal(await server.reload(`${block}\nexample.net:${busy} {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}`), false);
  assert.ok(server.lines.some((l) => l.startsWith('[ERROR] Restart failed:')));
  assert.equal(metricsPort(server.server), port);
  await query({ port: server.port('example.org.') }, 'example.org', 'A');
  const expo = await scrape(port);
  assert.equal(value(expo, 'coredns_dns_requests_total', { zone: 'example.org.' }), 2);
  assert.equal(value(expo, 'coredns_plugin_enabled', { zone: 'example.org.', name: 'prometheus' }), 1);
  assert.deepEqual(select(expo, 'coredns_plugin_enabled', { zone: 'example.net.' }), []);
});

test('a reload with a broken Corefile leaves the listener alone', async (t) => {
  const server = await serve(t, '.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}');
  const port = metricsPort(server.server);
  assert.equal(await server.reload('.:0 {\n bind 127.0.0.1\n prometheus 9153\n whoami\n}'), false);
  assert.equal((await httpGet(port, '/metrics')).status, 200);
});

// ---------------------------------------------------------------------------------------------
// The handler on its own: what is reported for each way a chain can end.

function request(name: string, type: Parameters<typeof makeQuery>[1], remoteAddress = '192.0.2.1', transport: 'udp' | 'tcp' = 'udp'): Request {
  const req = Request.fromWire(makeQuery(name, type), transport, remoteAddress, 5353);
  req.server = 'dns://:53';
  req.zone = 'example.org.';
  return req;
}

/** A writer that sends nothing and reports a fixed size. */
const sink: ResponseWriter = { write: () => 40, writeWire: (wire) => wire.length };

function chainEnd(serve: Handler['serveDNS']): Handler {
  return { name: 'end', serveDNS: serve };
}

test('the handler reports asynchronous answers, errors with their rcode, and the server-written rcodes', async () => {
  const registry = new Registry();
  const metrics = createDnsMetrics(registry);
  const answer = (req: Request, w: ResponseWriter): number => {
    w.write(replyTo(req, Rcode.NXDOMAIN));
    return Rcode.NXDOMAIN;
  };
  const asyncAnswer = new Prometheus('prometheus', chainEnd((req, w) => Promise.resolve().then(() => answer(req, w))), metrics);
  assert.equal(await asyncAnswer.serveDNS(request('a.example.org', 'A'), sink), Rcode.NXDOMAIN);

  const refused = new Prometheus('prometheus', chainEnd(() => Rcode.REFUSED), metrics);
  assert.equal(refused.serveDNS(request('a.example.org', 'MX', '2001:db8::1', 'tcp'), sink), Rcode.REFUSED);

  const failing = new Prometheus('prometheus', chainEnd(() => Promise.reject(new PluginError('plugin/end: boom', { rcode: Rcode.SERVFAIL }))), metrics);
  await assert.rejects(Promise.resolve(failing.serveDNS(request('a.example.org', 'A'), sink)), /boom/);

  const panicking = new Prometheus(
    'prometheus',
    chainEnd(() => {
      throw new TypeError('bug');
    }),
    metrics,
  );
  assert.throws(() => panicking.serveDNS(request('a.example.org', 'A'), sink), /bug/);

  const last = new Prometheus('metrics', null, metrics);
  assert.throws(() => last.serveDNS(request('a.example.org', 'A'), sink), /^PluginError: plugin\/metrics: no next plugin found$/);

  const expo = parseExposition(await registry.metrics());
  const site = { server: 'dns://:53', zone: 'example.org.', view: '', plugin: '' };
  assert.equal(value(expo, 'coredns_dns_responses_total', { ...site, rcode: 'NXDOMAIN' }), 1);
  assert.equal(value(expo, 'coredns_dns_responses_total', { ...site, rcode: 'REFUSED' }), 1);
  // The PluginError and the missing next handler; the TypeError (a panic) is not reported.
  assert.equal(value(expo, 'coredns_dns_responses_total', { ...site, rcode: 'SERVFAIL' }), 2);
  assert.equal(value(expo, 'coredns_dns_requests_total', { proto: 'tcp', family: '2', type: 'MX' }), 1);
  assert.equal(value(expo, 'coredns_dns_requests_total', { proto: 'udp', family: '1', type: 'A' }), 3);
  // CoreDNS's recorder length: the NXDOMAIN message as written (31 bytes), not what the writer sent.
  assert.equal(value(expo, 'coredns_dns_response_size_bytes_sum', { proto: 'udp' }), dnsPacket.encodingLength(replyTo(request('a.example.org', 'A'), Rcode.NXDOMAIN)));
  assert.equal(value(expo, 'coredns_dns_response_size_bytes_sum', { proto: 'tcp' }), 0, 'nothing written: size 0');
});

test('creating the metrics twice in one registry returns the same objects', () => {
  const registry = new Registry();
  const first = createDnsMetrics(registry);
  const second = createDnsMetrics(registry);
  assert.equal(first.requests, second.requests);
  assert.equal(first.duration, second.duration);
  assert.equal(first.pluginEnabled, second.pluginEnabled);
});

test('TCP pipelined queries are each counted once', async (t) => {
  const srv = await serve(t, '.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}');
  const replies = await tcpExchange({ port: srv.port() }, [makeQuery('a.example', 'A'), makeQuery('b.example', 'NS'), makeQuery('c.example', 'SRV')]);
  assert.equal(replies.length, 3);
  const expo = await scrape(metricsPort(srv.server));
  assert.equal(value(expo, 'coredns_dns_request_duration_seconds_count', { zone: '.' }), 3);
  for (const type of ['A', 'NS', 'SRV']) assert.equal(value(expo, 'coredns_dns_requests_total', { proto: 'tcp', type }), 1);
});
