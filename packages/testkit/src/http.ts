/**
 * HTTP helpers for the tests of plugins that serve HTTP (*health*, *ready*, *prometheus*): one
 * request on a fresh connection, and a port that was free a moment ago.
 */
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/** What {@link httpGet} got back. */
export interface HttpReply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The body as UTF-8. */
  readonly text: string;
}

export interface HttpGetOptions {
  /** Default `GET`. */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Rejects with an ETIMEDOUT error when no reply came this soon; by default it waits. */
  readonly timeoutMs?: number;
}

/**
 * One request to `http://127.0.0.1:PORT/PATH`. `agent: false` sends `Connection: close`, so no
 * keep-alive socket outlives the test. Rejects with the socket error (`ECONNREFUSED`).
 */
export function httpGet(port: number, path: string, options: HttpGetOptions = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const { method = 'GET', headers = {}, host = '127.0.0.1' } = options;
    const request = http.request({ host, port, path, method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text: body.toString('utf8') });
      });
    });
    request.on('error', reject);
    if (options.timeoutMs !== undefined) {
      request.setTimeout(options.timeoutMs, () => request.destroy(Object.assign(new Error(`no reply within ${options.timeoutMs}ms`), { code: 'ETIMEDOUT' })));
    }
    request.end();
  });
}

/**
 * Where the free-port helpers look: below the kernel's ephemeral range (Linux's
 * ip_local_port_range, 32768-60999 by default), from half its first port up. The kernel also
 * gives the local ports of outgoing connections from that range: a port found free there may be
 * taken by any client (of a test API server, of an upstream) before the test binds it, and the
 * bind then fails with "address already in use". Null where the range cannot be read: the
 * kernel's choice (port 0) then.
 */
const belowEphemeral: { readonly from: number; readonly to: number } | null = (() => {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low >= 4096 ? { from: Math.floor(low / 2), to: low } : null;
  } catch {
    return null;
  }
})();

/**
 * Ports this process has handed out, never handed out again. A test that starts several servers
 * at once checks each one's ports free before any server binds them: the stock-Corefile test
 * starts five with four ports each, and two random picks of one port both found it free, so the
 * second server failed with "address already in use" (twice in about forty runs of that file).
 */
const handedOut = new Set<number>();

/** `port` for the caller unless this process handed it out already (see {@link handedOut}). */
function handOut(port: number | null): number | null {
  if (port === null || handedOut.has(port)) return null;
  handedOut.add(port);
  return port;
}

/** A port to try: random below the ephemeral range, or 0. */
function candidatePort(): number {
  return belowEphemeral === null ? 0 : belowEphemeral.from + Math.floor(Math.random() * (belowEphemeral.to - belowEphemeral.from));
}

/** Whether a TCP listener could take `port` on `host` (0: any); the port it got, or null. */
async function tryTcp(port: number, host: string): Promise<number | null> {
  const server = net.createServer();
  const got = await new Promise<number | null>((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
  if (got !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  return got;
}

/**
 * A TCP port on `host` that was free a moment ago, for tests that need the same port twice.
 * Below the ephemeral range, so no outgoing connection takes it meanwhile, and never one this
 * process handed out before.
 */
export async function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = handOut(await tryTcp(candidatePort(), host));
    if (port !== null) return port;
    if (attempt === 50) throw new Error(`no free TCP port on ${host} in 50 tries`);
  }
}

/**
 * A port on `host` that was free for both UDP and TCP a moment ago, for a DNS server that must
 * listen on a fixed port: `foghorn -workers N` with port 0 shares the one UDP port its primary
 * picked, which another process may hold for TCP, and cannot pick again (the listener's port-0
 * retry works in one process only). Below the ephemeral range and never handed out twice, as
 * {@link freeTcpPort}.
 */
export async function freeDnsPort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const udp = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const port = await new Promise<number | null>((resolve) => {
      udp.once('error', () => resolve(null));
      udp.bind(candidatePort(), host, () => resolve(udp.address().port));
    });
    const free = port !== null && (await tryTcp(port, host)) !== null;
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (free && handOut(port) !== null) return port;
    if (attempt === 50) throw new Error(`no port on ${host} free for both UDP and TCP in 50 tries`);
  }
}

/** A TCP port held by a plain listener until `close()`: for "address already in use" tests. */
export interface HeldPort {
  readonly port: number;
  close(): Promise<void>;
}

export async function holdTcpPort(host = '127.0.0.1'): Promise<HeldPort> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
