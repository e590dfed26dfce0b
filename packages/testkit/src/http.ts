/**
 * HTTP helpers for the tests of plugins that serve HTTP (*health*, *ready*, *prometheus*): one
 * request on a fresh connection, and a port that was free a moment ago.
 */
import dgram from 'node:dgram';
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

/** A TCP port on `host` that was free a moment ago, for tests that need the same port twice. */
export async function freeTcpPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port on `host` that was free for both UDP and TCP a moment ago, for a DNS server that must
 * listen on a fixed port: `foghorn -workers N` with port 0 shares the one UDP port its primary
 * picked, which another process may hold for TCP, and cannot pick again (the listener's port-0
 * retry works in one process only).
 */
export async function freeDnsPort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const udp = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, host, resolve);
    });
    const { port } = udp.address();
    const server = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, host, () => resolve(true));
    });
    if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => udp.close(resolve));
    if (free) return port;
    if (attempt === 20) throw new Error(`no port on ${host} free for both UDP and TCP in 20 tries`);
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
