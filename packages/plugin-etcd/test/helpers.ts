/** Shared by the etcd tests: SkyDNS services written to a real etcd, and servers that read them. */
import { directivesOf, FakeBackend, startServer } from '@foghorn/testkit';
import type { TestEtcd, TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';
import etcd, { pathWithWildcard } from '@foghorn/plugin-etcd';

type After = { after(fn: () => void | Promise<void>): void };

/** A service as CoreDNS's tests write it: the JSON fields plus `key`, a DNS name turned into the etcd path. */
export interface TestService {
  readonly key: string;
  readonly host?: string;
  readonly port?: number;
  readonly priority?: number;
  readonly weight?: number;
  readonly text?: string;
  readonly mail?: boolean;
  readonly ttl?: number;
  readonly targetstrip?: number;
  readonly group?: string;
}

/** Writes each service at its key under `/skydns` (CoreDNS's `set`); resolves with the keys written. */
export async function writeServices(server: TestEtcd, services: readonly TestService[], prefix = 'skydns'): Promise<string[]> {
  const keys: string[] = [];
  for (const { key, ...fields } of services) {
    const path = pathWithWildcard(key, prefix).path;
    await server.put(path, JSON.stringify(fields));
    keys.push(path);
  }
  return keys;
}

/** The plugin after etcd (`backend` in a Corefile): what etcd passes on or looks up reaches it. */
export const backend = new FakeBackend();

/** A server on 127.0.0.1 whose block is `errors`, then `body` (an etcd line), then `tail` lines. */
export async function serveEtcd(t: After, body: string, tail = ''): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n errors\n ${body}\n ${tail}\n}\n`, { directives: directivesOf(bind, errors, etcd, backend.plugin()) });
  t.after(() => server.close());
  return server;
}

/** The SOA every negative answer of `zone` carries (the serial is not compared). */
export function soaOf(zone: string): string {
  return `${zone} 30 IN SOA ns.dns.${zone} hostmaster.${zone} 0 7200 1800 86400 30`;
}
