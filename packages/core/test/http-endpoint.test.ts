import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { Dispenser, parseCorefile } from '@foghorn/corefile';
import { HttpEndpoint, HttpEndpoints, notFound, parseHttpAddress } from '../src/http-endpoint.js';
import type { HttpEndpointOptions } from '../src/http-endpoint.js';

/** Answers `/hello` with `hi`, everything else with Go's 404. */
function hello(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url !== '/hello') return notFound(req, res);
  res.end('hi');
}

function endpoint(address: string, options: Partial<HttpEndpointOptions> = {}): HttpEndpoint {
  return new HttpEndpoint({ address, handler: hello, onError: (error) => assert.fail(error), ...options });
}

/** Status and body of one request on a fresh connection (agent: false, nothing pooled). */
function fetchText(port: number, path: string): Promise<[status: number, body: string]> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString()]));
      })
      .on('error', reject);
  });
}

/** A TCP port held by someone else until `release`. */
async function occupied(): Promise<{ port: number; release(): Promise<void> }> {
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  return {
    port: (squatter.address() as net.AddressInfo).port,
    release: () => new Promise<void>((resolve) => squatter.close(() => resolve())),
  };
}

test('an endpoint on 127.0.0.1:0 serves its handler on the port it reports, then refuses once closed', async () => {
  const e = endpoint('127.0.0.1:0');
  assert.equal(e.isOpen, false);
  assert.equal(e.port, 0);
  assert.equal(e.host, '127.0.0.1');
  await e.open();
  assert.equal(e.isOpen, true);
  assert.notEqual(e.port, 0);
  // CoreDNS's 5s read, write and idle timeouts.
  assert.equal(e.server?.requestTimeout, 5_000);
  assert.equal(e.server?.keepAliveTimeout, 5_000);
  assert.deepEqual(await fetchText(e.port, '/hello'), [200, 'hi']);
  assert.deepEqual(await fetchText(e.port, '/other'), [404, '404 page not found\n']);
  await e.open(); // already open: nothing happens
  const port = e.port;
  await e.close();
  assert.equal(e.isOpen, false);
  assert.equal(e.port, 0);
  await assert.rejects(fetchText(port, '/hello'), { code: 'ECONNREFUSED' });
  await e.close(); // already closed: nothing happens
});

test('listen failures read as Go errors: a taken port, a port name, a failed lookup', async (t) => {
  const squatter = await occupied();
  t.after(() => squatter.release());
  const taken = endpoint(`127.0.0.1:${squatter.port}`);
  await assert.rejects(taken.open(), { message: `listen tcp 127.0.0.1:${squatter.port}: bind: address already in use` });
  assert.equal(taken.isOpen, false);
  // Refused when opening, as CoreDNS fails at listen time, not when the Corefile is read.
  await assert.rejects(endpoint('127.0.0.1:http').open(), { message: "listen tcp 127.0.0.1:http: unknown port 'http'" });
  const unresolvable = endpoint('nosuch.invalid:0', {
    resolveHost: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nosuch.invalid'), { code: 'ENOTFOUND' })),
  });
  await assert.rejects(unresolvable.open(), { message: 'listen tcp nosuch.invalid:0: lookup nosuch.invalid: no such host' });
  assert.throws(() => endpoint('8080'), { message: 'address 8080: missing port in address' });
});

test("timeoutMs 0 leaves Node's own timeouts alone", async (t) => {
  const e = endpoint('127.0.0.1:0', { timeoutMs: 0 });
  await e.open();
  t.after(() => e.close());
  const defaults = http.createServer();
  assert.equal(e.server?.requestTimeout, defaults.requestTimeout);
  assert.equal(e.server?.headersTimeout, defaults.headersTimeout);
});

test('resolveHost chooses the address bound for a host name', async (t) => {
  const asked: string[] = [];
  const e = endpoint('loopback.test:0', { resolveHost: (host) => (asked.push(host), Promise.resolve('127.0.0.1')) });
  await e.open();
  t.after(() => e.close());
  assert.deepEqual(asked, ['loopback.test']);
  assert.equal((e.server?.address() as net.AddressInfo).address, '127.0.0.1');
  assert.deepEqual(await fetchText(e.port, '/hello'), [200, 'hi']);
});

test('a port-0 endpoint reopens on its last port, or on a new one when that was taken meanwhile', async (t) => {
  const e = endpoint('127.0.0.1:0');
  t.after(() => e.close());
  await e.open();
  const first = e.port;
  await e.close();
  await e.open();
  assert.equal(e.port, first, 'a reload keeps the port');
  await e.close();
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(first, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
  await e.open();
  assert.notEqual(e.port, 0);
  assert.notEqual(e.port, first);
});

test('owners share one listener: the first acquire opens it, the last release closes it', async () => {
  const e = endpoint('127.0.0.1:0');
  const a = {};
  const b = {};
  await e.acquire(a);
  const port = e.port;
  await e.acquire(b);
  await e.acquire(a); // held already: nothing happens
  assert.equal(e.port, port);
  assert.ok(e.holds(a) && e.holds(b));
  await e.release(a);
  assert.equal(e.isOpen, true, 'b still holds it');
  await e.release(a); // not held: nothing happens
  assert.equal(e.isOpen, true);
  await e.release(b);
  assert.equal(e.isOpen, false);
  // close() ends every claim.
  await e.acquire(a);
  await e.close();
  assert.equal(e.holds(a), false);
  assert.equal(e.isOpen, false);
});

test('an owner whose acquire failed holds nothing', async (t) => {
  const squatter = await occupied();
  t.after(() => squatter.release());
  const e = endpoint(`127.0.0.1:${squatter.port}`);
  const owner = {};
  await assert.rejects(e.acquire(owner), /address already in use/);
  assert.equal(e.holds(owner), false);
});

test('open and close called without waiting run in order', async () => {
  const e = endpoint('127.0.0.1:0');
  await Promise.all([e.open(), e.open()]);
  const port = e.port;
  assert.notEqual(port, 0);
  const closing = e.close();
  const reopening = e.open();
  await Promise.all([closing, reopening]);
  assert.equal(e.isOpen, true);
  assert.equal(e.port, port);
  const opening = e.open();
  await e.close();
  await opening;
  assert.equal(e.isOpen, false);
});

test('closing ends idle keep-alive connections at once and cuts busy ones after the grace period', async () => {
  let requests = 0;
  const e = endpoint('127.0.0.1:0', {
    shutdownGraceMs: 100,
    // The first request is answered (its connection then idles); the second never is.
    handler: (_req, res) => void (requests++ === 0 && res.end('ok')),
  });
  await e.open();
  const order: string[] = [];
  const agent = new http.Agent({ keepAlive: true });
  const idle = await new Promise<http.IncomingMessage>((resolve) => http.get({ host: '127.0.0.1', port: e.port, agent }, resolve));
  // Kept before the response ends: the agent then detaches the socket to pool it.
  const idleSocket = idle.socket;
  idle.resume();
  await new Promise((resolve) => idle.on('end', resolve));
  const idleClosed = new Promise((resolve) => idleSocket.once('close', () => resolve(order.push('idle closed'))));
  const busy = new Promise((resolve) =>
    http.get({ host: '127.0.0.1', port: e.port, agent: false }).on('error', (error) => resolve(order.push(`busy: ${error.message}`))),
  );
  while (requests < 2) await new Promise((resolve) => setTimeout(resolve, 1));
  const started = Date.now();
  await e.close();
  await Promise.all([idleClosed, busy]);
  assert.ok(Date.now() - started >= 90, 'close waited for the busy request');
  assert.deepEqual(order, ['idle closed', 'busy: socket hang up']);
  agent.destroy();
});

test('a socket error after listening goes to onError instead of ending the process', async (t) => {
  const errors: string[] = [];
  const e = endpoint('127.0.0.1:0', { onError: (error) => errors.push(error.message) });
  await e.open();
  t.after(() => e.close());
  e.server?.emit('error', new Error('accept EMFILE'));
  assert.deepEqual(errors, ['accept EMFILE']);
});

test('subclasses hear when the listener opens and starts closing', async () => {
  const heard: string[] = [];
  class Probed extends HttpEndpoint {
    protected override opened(): void {
      heard.push(`opened ${this.isOpen}`);
    }
    protected override closing(): void {
      heard.push(`closing ${this.isOpen}`);
    }
  }
  const e = new Probed({ address: '127.0.0.1:0', handler: hello, onError: () => {} });
  await e.open();
  await e.close();
  assert.deepEqual(heard, ['opened true', 'closing false']);
});

test('HttpEndpoints makes one endpoint per address and lists the open ones', async () => {
  const endpoints = new HttpEndpoints();
  let made = 0;
  const make = (address: string): HttpEndpoint => (made++, endpoint(address));
  const a = endpoints.get('127.0.0.1:0', make);
  assert.equal(endpoints.get('127.0.0.1:0', make), a);
  const b = endpoints.get('[::1]:0', make);
  assert.equal(made, 2);
  assert.deepEqual([...endpoints], [a, b]);
  assert.deepEqual(endpoints.open(), []);
  await a.open();
  assert.deepEqual(endpoints.open(), [a]);
  await a.close();
});

/** The dispenser standing on the first `http` directive of `corefile`'s first block. */
function directive(corefile: string): Dispenser {
  const [block] = parseCorefile(corefile, { file: 'Corefile' });
  assert.ok(block);
  const c = Dispenser.fromBlock(block, 'http');
  assert.ok(c.next());
  return c;
}

test('parseHttpAddress takes at most one Go host:port argument, with errors at the token', () => {
  assert.equal(parseHttpAddress(directive('. {\n http\n}'), ':8080'), ':8080');
  assert.equal(parseHttpAddress(directive('. {\n http [::1]:80\n}'), ':8080'), '[::1]:80');
  assert.equal(parseHttpAddress(directive('. {\n http 127.0.0.1:0 {\n }\n}'), ':8080'), '127.0.0.1:0');
  assert.throws(() => parseHttpAddress(directive('. {\n http foo\n}'), ':8080'), {
    message: 'Corefile:2:7 - Error during parsing: address foo: missing port in address',
  });
  assert.throws(() => parseHttpAddress(directive('. {\n http ::1:80\n}'), ':8080'), /address ::1:80: too many colons in address$/);
  assert.throws(() => parseHttpAddress(directive('. {\n http :80 :81\n}'), ':8080'), {
    message: "Corefile:2:11 - Error during parsing: Wrong argument count or unexpected line ending after ':81'",
  });
});
