/**
 * A real etcd (Debian's `etcd-server`, installed by scripts/test-tools.sh) for the tests of
 * plugins that read it: one member on loopback high ports with a temporary data directory,
 * plain HTTP or TLS with client certificates, written to through etcd's JSON gateway. `stop()`
 * and `start()` take it away and bring it back on the same port with the same data.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from './http.js';

export interface EtcdTls {
  readonly certFile: string;
  readonly keyFile: string;
  /** CA of the client certificates etcd requires (`--client-cert-auth`). */
  readonly caFile: string;
  /** What the test's own client presents and trusts. */
  readonly client: { readonly cert: string; readonly key: string; readonly ca: string };
}

export interface TestEtcd {
  /** The client URL, `http://127.0.0.1:PORT` (`https://` with TLS). */
  readonly url: string;
  readonly port: number;
  /** Writes `value` at `key`, with a lease when given. */
  put(key: string, value: string, options?: { lease?: string }): Promise<void>;
  /** Deletes `key`, or every key starting with it. */
  delete(key: string, options?: { prefix?: boolean }): Promise<void>;
  /** Grants a lease of `ttl` seconds; its ID. */
  grantLease(ttl: number): Promise<string>;
  /** Adds user `root` with `password` and turns authentication on; the test's writes log in from then on. */
  enableAuth(password: string): Promise<void>;
  /** Stops the member (SIGTERM), keeping its data and port. */
  stop(): Promise<void>;
  /** Starts it again after `stop()`, on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/** Starts an etcd member; rejects with its log when it does not serve within 20 s. */
export async function startEtcd(options: { tls?: EtcdTls } = {}): Promise<TestEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-etcd-'));
  const port = await freeTcpPort();
  const peerPort = await freeTcpPort();
  const scheme = options.tls ? 'https' : 'http';
  const url = `${scheme}://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'foghorn', '--data-dir', join(dir, 'data'),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `foghorn=${peer}`,
    '--logger', 'zap', '--log-outputs', 'stderr', '--log-level', 'warn',
  ];
  if (options.tls) args.push('--cert-file', options.tls.certFile, '--key-file', options.tls.keyFile, '--trusted-ca-file', options.tls.caFile, '--client-cert-auth');
  const agent = options.tls ? new https.Agent({ ...options.tls.client, keepAlive: false }) : new http.Agent({ keepAlive: false });
  let token: string | undefined;
  let password: string | undefined;
  let child: ChildProcess | undefined;
  let log = '';

  async function call(path: string, body: object): Promise<Record<string, unknown>> {
    const payload = JSON.stringify(body);
    const client = options.tls ? https : http;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (token) headers.authorization = token;
      const req = client.request(`${url}${path}`, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`etcd ${path}: HTTP ${res.statusCode}: ${text}`));
          else resolve(JSON.parse(text) as Record<string, unknown>);
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  const b64 = (text: string): string => Buffer.from(text).toString('base64');

  async function launch(): Promise<void> {
    log = '';
    const proc = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    proc.stderr!.on('data', (chunk: Buffer) => {
      if (log.length < 20_000) log += chunk.toString();
    });
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`etcd exited with ${code}: ${log}`))));
    exited.catch(() => {});
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await Promise.race([call('/v3/kv/range', { key: b64('/') }), exited]);
        break;
      } catch (error) {
        if (proc.exitCode !== null || Date.now() > deadline) {
          proc.kill('SIGKILL');
          throw new Error(`etcd did not start: ${(error as Error).message}\n${log}`);
        }
        // Authentication on: the member is up and refuses anonymous reads.
        if (/user name is empty|invalid auth token/.test((error as Error).message)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    if (password !== undefined) await login();
  }

  async function login(): Promise<void> {
    token = undefined;
    const reply = await call('/v3/auth/authenticate', { name: 'root', password });
    token = String(reply.token);
  }

  async function stop(): Promise<void> {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }

  await launch();
  return {
    url,
    port,
    async put(key, value, put = {}) {
      await call('/v3/kv/put', { key: b64(key), value: b64(value), ...(put.lease ? { lease: put.lease } : {}) });
    },
    async delete(key, del = {}) {
      const body: Record<string, string> = { key: b64(key) };
      if (del.prefix) {
        const end = Buffer.from(key);
        end[end.length - 1]! += 1;
        body.range_end = end.toString('base64');
      }
      await call('/v3/kv/deleterange', body);
    },
    async grantLease(ttl) {
      return String((await call('/v3/lease/grant', { TTL: ttl })).ID);
    },
    async enableAuth(rootPassword) {
      await call('/v3/auth/user/add', { name: 'root', password: rootPassword });
      await call('/v3/auth/user/grant', { user: 'root', role: 'root' });
      await call('/v3/auth/enable', {});
      password = rootPassword;
      await login();
    },
    stop,
    start: launch,
    async close() {
      await stop();
      agent.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
