import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { PluginError, Rcode, replyTo } from '@foghorn/core';
import type { Handler } from '@foghorn/core';
import { answering, directivesOf, eventually, FakeBackend, freeDnsPort, query, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import forward from '@foghorn/plugin-forward';
import trace from '../src/index.js';

/** A collector on loopback: every POST body it got, parsed as JSON, with its path and content type. */
async function startReceiver(t: { after(fn: () => unknown): void }, status = 202): Promise<{ url(path: string): string; posts: { path: string; type: string; body: unknown }[] }> {
  const posts: { path: string; type: string; body: unknown }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: JSON.parse(text) as unknown });
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  return { url: (path) => `http://127.0.0.1:${port}${path}`, posts };
}

interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name: string;
  kind?: string;
  timestamp: number;
  duration: number;
  localEndpoint: { serviceName: string; ipv4?: string; port?: number };
  tags: Record<string, string>;
}

function zipkinSpans(posts: { body: unknown }[]): ZipkinSpan[] {
  return posts.flatMap((post) => post.body as ZipkinSpan[]);
}

/** Passes every query on: a plugin between trace and the answerer, so spans nest. */
const relay = testPlugin('relay', (next) => ({ name: 'relay', serveDNS: (req, w) => (next as Handler).serveDNS(req, w) }));

test('zipkin: a root span per query and a nested span per plugin, with CoreDNS tags', async (t) => {
  const receiver = await startReceiver(t);
  const port = await freeDnsPort();
  const server = await startServer(
    `example.org:${port} {\n bind 127.0.0.1\n trace ${receiver.url('/api/v2/spans')} {\n  service dns-east\n  zipkin_max_batch_interval 20ms\n }\n relay\n whoami\n}\n`,
    { directives: directivesOf(bind, trace, relay, whoami) },
  );
  t.after(() => server.close());
  await query({ port: server.port() }, 'Example.ORG', 'AAAA');
  await eventually(() => zipkinSpans(receiver.posts).length === 3, 3000, 'three spans');
  assert.equal(receiver.posts[0]!.path, '/api/v2/spans');
  assert.equal(receiver.posts[0]!.type, 'application/json');
  const spans = zipkinSpans(receiver.posts);
  const root = spans.find((span) => span.name === 'servedns')!;
  const relaySpan = spans.find((span) => span.name === 'relay')!;
  const whoamiSpan = spans.find((span) => span.name === 'whoami')!;
  assert.equal(root.kind, 'SERVER');
  assert.equal(root.parentId, undefined);
  assert.match(root.traceId, /^[0-9a-f]{16}$/);
  assert.match(root.id, /^[0-9a-f]{16}$/);
  assert.deepEqual(root.tags, {
    'coredns.io/name': 'example.org.',
    'coredns.io/type': 'AAAA',
    'coredns.io/proto': 'udp',
    'coredns.io/remote': '127.0.0.1',
    'coredns.io/rcode': 'NOERROR',
  });
  // Each plugin's span is a child of the one that called it, in the same trace.
  assert.equal(relaySpan.parentId, root.id);
  assert.equal(whoamiSpan.parentId, relaySpan.id);
  for (const span of [relaySpan, whoamiSpan]) {
    assert.equal(span.traceId, root.traceId);
    assert.equal(span.kind, undefined);
  }
  // Children start no earlier and end no later than their parent.
  assert.ok(whoamiSpan.timestamp >= relaySpan.timestamp && relaySpan.timestamp >= root.timestamp);
  assert.ok(relaySpan.timestamp + relaySpan.duration <= root.timestamp + root.duration);
  assert.ok(Math.abs(root.timestamp / 1000 - Date.now()) < 10_000, 'timestamps are epoch microseconds');
  assert.deepEqual(root.localEndpoint, { serviceName: 'dns-east', ipv4: '127.0.0.1', port });
});

test('every N traces one query in N, and the others carry no span', async (t) => {
  const receiver = await startReceiver(t);
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n trace ${receiver.url('/api/v2/spans')} {\n  every 3\n  zipkin_max_batch_interval 20ms\n }\n whoami\n}\n`, {
    directives: directivesOf(bind, trace, whoami),
  });
  t.after(() => server.close());
  for (let i = 1; i <= 7; i++) await query({ port: server.port() }, `q${i}.example.org`, 'A');
  await eventually(() => zipkinSpans(receiver.posts).filter((span) => span.name === 'servedns').length === 2, 3000, 'two traces');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const roots = zipkinSpans(receiver.posts).filter((span) => span.name === 'servedns');
  assert.deepEqual(roots.map((span) => span.tags['coredns.io/name']).sort(), ['q3.example.org.', 'q6.example.org.']);
  assert.equal(zipkinSpans(receiver.posts).length, 4);
});

test('the rcode tag is what the client got; an error marks the span', async (t) => {
  const receiver = await startReceiver(t);
  const backend = new FakeBackend();
  backend.table.set('nx.example.org. A', (req) => replyTo(req, Rcode.NXDOMAIN));
  backend.table.set('fail.example.org. A', () => {
    throw new PluginError('backend exploded');
  });
  // REFUSED returned without a reply: the server writes it (CoreDNS's ClientWrite rule).
  const refuser = testPlugin('refuser', (next) => ({ name: 'refuser', serveDNS: (req, w) => (req.qname === 'refused.example.org.' ? Rcode.REFUSED : (next as Handler).serveDNS(req, w)) }));
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n trace ${receiver.url('/api/v2/spans')} {\n  zipkin_max_batch_interval 20ms\n }\n refuser\n backend\n}\n`, {
    directives: directivesOf(bind, trace, refuser, backend.plugin()),
  });
  t.after(() => server.close());
  for (const name of ['nx', 'fail', 'refused']) await query({ port: server.port() }, `${name}.example.org`, 'A');
  await eventually(() => zipkinSpans(receiver.posts).filter((span) => span.name === 'servedns').length === 3, 3000, 'three traces');
  const byName = new Map(zipkinSpans(receiver.posts).filter((span) => span.name === 'servedns').map((span) => [span.tags['coredns.io/name'], span]));
  assert.equal(byName.get('nx.example.org.')!.tags['coredns.io/rcode'], 'NXDOMAIN');
  assert.equal(byName.get('fail.example.org.')!.tags['coredns.io/rcode'], 'SERVFAIL');
  assert.equal(byName.get('fail.example.org.')!.tags['error'], 'true');
  assert.equal(byName.get('refused.example.org.')!.tags['coredns.io/rcode'], 'REFUSED');
  assert.equal(byName.get('refused.example.org.')!.tags['error'], undefined);
  // The failing plugin's own span is marked too.
  const failed = zipkinSpans(receiver.posts).find((span) => span.name === 'backend' && span.traceId === byName.get('fail.example.org.')!.traceId)!;
  assert.equal(failed.tags['error'], 'true');
});

test('otlp: OTLP/HTTP JSON with the service name, SERVER and INTERNAL kinds, parent IDs and attributes; forward adds a connect span', async (t) => {
  const receiver = await startReceiver(t, 200);
  const upstream = await upstreamFor(t, answering);
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n trace otlp ${receiver.url('/v1/traces')} {\n  zipkin_max_batch_interval 20ms\n }\n forward . ${upstream.address}\n}\n`, {
    directives: directivesOf(bind, trace, forward),
  });
  t.after(() => server.close());
  await query({ port: server.port() }, 'www.example.net', 'A', { transport: 'tcp' });
  type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes: { key: string; value: { stringValue: string } }[] };
  type Otlp = { resourceSpans: { resource: { attributes: { key: string; value: { stringValue: string } }[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] };
  const spans = (): OtlpSpan[] => receiver.posts.flatMap((post) => (post.body as Otlp).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
  await eventually(() => spans().length === 3, 3000, 'three spans');
  const body = receiver.posts[0]!.body as Otlp;
  assert.equal(receiver.posts[0]!.path, '/v1/traces');
  assert.deepEqual(body.resourceSpans[0]!.resource.attributes[0], { key: 'service.name', value: { stringValue: 'coredns' } });
  assert.equal(body.resourceSpans[0]!.scopeSpans[0]!.scope.name, '@foghorn/plugin-trace');
  const root = spans().find((span) => span.name === 'servedns')!;
  const forwardSpan = spans().find((span) => span.name === 'forward')!;
  const connect = spans().find((span) => span.name === 'connect')!;
  assert.match(root.traceId, /^[0-9a-f]{32}$/);
  assert.equal(root.kind, 2);
  assert.equal(forwardSpan.kind, 1);
  assert.equal(forwardSpan.parentSpanId, root.spanId);
  assert.equal(connect.parentSpanId, forwardSpan.spanId);
  assert.deepEqual(connect.attributes, [{ key: 'peer.address', value: { stringValue: upstream.address } }]);
  const attributes = Object.fromEntries(root.attributes.map((a) => [a.key, a.value.stringValue]));
  assert.equal(attributes['coredns.io/proto'], 'tcp');
  assert.equal(attributes['coredns.io/rcode'], 'NOERROR');
  // The forward span lasts until forward's answer came back, the connect span within it.
  assert.ok(BigInt(forwardSpan.endTimeUnixNano) >= BigInt(connect.endTimeUnixNano));
  assert.ok(BigInt(root.endTimeUnixNano) >= BigInt(forwardSpan.endTimeUnixNano));
  assert.ok(BigInt(forwardSpan.startTimeUnixNano) <= BigInt(connect.startTimeUnixNano));
});

test('an unreachable collector is logged and costs the queries nothing', async (t) => {
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n trace 127.0.0.1:1 {\n  zipkin_max_batch_interval 10ms\n }\n whoami\n}\n`, {
    directives: directivesOf(bind, trace, whoami),
  });
  t.after(() => server.close());
  for (let i = 0; i < 5; i++) assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  await eventually(() => server.lines.some((line) => line.startsWith('[WARNING] plugin/trace: failed to send the request: Post "http://127.0.0.1:1/api/v2/spans"')), 3000, 'the warning');
});

test('datadog is accepted and warned about, and queries are answered untraced', async (t) => {
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n trace datadog localhost:8126 {\n  datadog_analytics_rate 0.5\n }\n whoami\n}\n`, {
    directives: directivesOf(bind, trace, whoami),
  });
  t.after(() => server.close());
  assert.equal((await query({ port: server.port() }, 'example.org', 'A')).rcode, 'NOERROR');
  assert.ok(server.lines.includes("[WARNING] plugin/trace: endpoint type 'datadog' is not supported by Foghorn: no spans are sent to localhost:8126"));
});
