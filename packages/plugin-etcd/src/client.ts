/**
 * An etcd v3 client over etcd's gRPC gateway: the JSON HTTP API every etcd v3 server serves on
 * its client URLs (`POST /v3/kv/range`, keys and values in base64). The plugin needs three calls
 * (range, lease time-to-live, authenticate), so node:http(s) with a keep-alive agent per
 * endpoint does the work of the Go client CoreDNS links.
 *
 * Endpoints are tried in order from the one that last answered; a connection failure or a
 * timeout moves on to the next. An etcd error reply (`{"error":…,"code":…}`) is an error of the
 * call, not of the endpoint. Each call has CoreDNS's 5 s budget (`etcdTimeout`) in all.
 */
import http from 'node:http';
import https from 'node:https';
import { errorMessage } from '@foghorn/core';

/** Client certificate, key and CA for `https://` endpoints, as the `tls` line names them. */
export interface TlsFiles {
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly ca?: Buffer;
}

export interface ClientOptions {
  readonly endpoints: readonly string[];
  readonly tls?: TlsFiles | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** Budget of one call, all endpoints together; 5 s by default. */
  readonly timeoutMs?: number;
}

/** One key-value pair of a range reply. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** The lease ID as decimal text (an int64), `'0'` for none. */
  readonly lease: string;
}

/** An error reply from etcd: its gRPC code and message. */
export class EtcdError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** gRPC's UNAUTHENTICATED and FAILED_PRECONDITION codes, as etcd's gateway sends them. */
const UNAUTHENTICATED = 16;
const FAILED_PRECONDITION = 9;

interface Endpoint {
  readonly url: URL;
  readonly agent: http.Agent;
}

/** An `endpoint` argument as a URL: a bare `host:port` is `http://` (`https://` with `tls`). */
export function endpointUrl(text: string, tls: boolean): URL {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `${tls ? 'https' : 'http'}://${text}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`endpoint ${text}: only http and https endpoints are supported`);
  return url;
}

export class EtcdClient {
  private readonly endpoints: Endpoint[];
  private current = 0;
  private token: string | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly options: ClientOptions) {
    const tls = options.tls !== undefined;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.endpoints = options.endpoints.map((text) => {
      const url = endpointUrl(text, tls);
      const agent =
        url.protocol === 'https:'
          ? new https.Agent({ keepAlive: true, ...(options.tls?.cert ? { cert: options.tls.cert } : {}), ...(options.tls?.key ? { key: options.tls.key } : {}), ...(options.tls?.ca ? { ca: options.tls.ca } : {}) })
          : new http.Agent({ keepAlive: true });
      return { url, agent };
    });
  }

  /** The keys from `key` (with `prefix`, every key starting with it), sorted by key. */
  async range(key: string, prefix: boolean): Promise<KeyValue[]> {
    const body: Record<string, string> = { key: b64(key) };
    if (prefix) body.range_end = prefixEnd(key).toString('base64');
    const reply = (await this.call('/v3/kv/range', body)) as { kvs?: { key?: string; value?: string; lease?: string }[] };
    return (reply.kvs ?? []).map((kv) => ({ key: unb64(kv.key), value: unb64(kv.value), lease: kv.lease ?? '0' }));
  }

  /** The seconds lease `id` has left; -1 when it expired or never existed. */
  async leaseTtl(id: string): Promise<number> {
    const reply = (await this.call('/v3/lease/timetolive', { ID: id })) as { TTL?: string };
    return Number(reply.TTL ?? -1);
  }

  close(): void {
    for (const endpoint of this.endpoints) endpoint.agent.destroy();
  }

  /** POSTs `body` to `path`, authenticating first when credentials are set, retrying once with a fresh token. */
  private async call(path: string, body: object): Promise<unknown> {
    const deadline = Date.now() + this.timeoutMs;
    if (this.options.username !== undefined && this.token === undefined) await this.authenticate(deadline);
    try {
      return await this.post(path, body, deadline);
    } catch (error) {
      if (!(error instanceof EtcdError && error.code === UNAUTHENTICATED && this.options.username !== undefined)) throw error;
      this.token = undefined;
      await this.authenticate(deadline);
      return this.post(path, body, deadline);
    }
  }

  private async authenticate(deadline: number): Promise<void> {
    try {
      const reply = (await this.post('/v3/auth/authenticate', { name: this.options.username, password: this.options.password }, deadline, false)) as { token?: string };
      this.token = reply.token;
    } catch (error) {
      // The Go client, too, carries on without a token when the server has auth off.
      if (error instanceof EtcdError && error.code === FAILED_PRECONDITION && /authentication is not enabled/.test(error.message)) {
        this.token = '';
        return;
      }
      throw error;
    }
  }

  /** One POST, on the current endpoint, then the others in turn while they cannot be reached. */
  private async post(path: string, body: object, deadline: number, withToken = true): Promise<unknown> {
    const payload = JSON.stringify(body);
    let lastError: unknown;
    for (let tried = 0; tried < this.endpoints.length; tried++) {
      const at = (this.current + tried) % this.endpoints.length;
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        const result = await request(this.endpoints[at]!, path, payload, withToken && this.token ? this.token : undefined, left);
        this.current = at;
        return result;
      } catch (error) {
        if (error instanceof EtcdError) throw error;
        lastError = error;
      }
    }
    throw new Error(lastError === undefined ? 'context deadline exceeded' : errorMessage(lastError));
  }
}

function request(endpoint: Endpoint, path: string, payload: string, token: string | undefined, timeoutMs: number): Promise<unknown> {
  const { url, agent } = endpoint;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    if (token) headers.authorization = token;
    const req = client.request(
      { protocol: url.protocol, hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname.replace(/\/$/, '')}${path}`, method: 'POST', headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          let parsed: { error?: string; message?: string; code?: number };
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof parsed;
          } catch {
            reject(new Error(`${url.origin}${path}: HTTP ${res.statusCode}: not JSON`));
            return;
          }
          if (res.statusCode !== 200 || parsed.error !== undefined) {
            reject(new EtcdError(parsed.message ?? parsed.error ?? `HTTP ${res.statusCode}`, parsed.code ?? 2));
            return;
          }
          resolve(parsed);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error('context deadline exceeded')), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(payload);
  });
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function unb64(text: string | undefined): string {
  return text === undefined ? '' : Buffer.from(text, 'base64').toString('utf8');
}

/** The end of the range of keys starting with `key`: its last byte below 0xff plus one (etcd's `GetPrefixRangeEnd`). */
export function prefixEnd(key: string): Buffer {
  const bytes = Buffer.from(key, 'utf8');
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 0xff) {
      const end = Buffer.from(bytes.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  // Every byte 0xff: the range runs to the end of the key space.
  return Buffer.from([0]);
}
