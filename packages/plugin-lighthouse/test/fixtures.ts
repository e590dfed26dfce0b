/**
 * Test fixtures: Lighthouse-shaped objects (as the agent writes them), a manifests directory,
 * a running server, and replies formatted as zone-file lines for comparison.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import dnsPacket from 'dns-packet';
import { decodeReply, directivesOf, eventually as waitUntil, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { Reply, TestServer } from '@foghorn/testkit';
import type { RecordType } from 'dns-packet';
import lighthouse, { AnswerTable, ServiceStore } from '../src/index.js';
import type { KubeObject, ObjectSink } from '../src/index.js';
import { countServed } from '../src/counters.js';

export interface PortSpec {
  name?: string;
  protocol?: string;
  port?: number;
  appProtocol?: string;
}

export const http: PortSpec = { name: 'http', protocol: 'TCP', port: 8080 };
export const dnsPort: PortSpec = { name: 'dns', protocol: 'UDP', port: 53 };
export const udp42: PortSpec = { name: 'udp', protocol: 'UDP', port: 42 };
export const tcp42: PortSpec = { name: 'tcp', protocol: 'TCP', port: 42 };
export const pop3: PortSpec = { name: 'POP3', protocol: 'UDP', port: 110 };
export const https: PortSpec = { name: 'https', protocol: 'TCP', port: 443 };
export const smtp: PortSpec = { name: 'SMTP', protocol: 'UDP', port: 25 };

export function serviceImport(
  name: string,
  namespace: string,
  options: { type?: 'ClusterSetIP' | 'Headless'; ips?: string[]; ports?: PortSpec[]; annotations?: Record<string, string>; labels?: Record<string, string>; version?: string } = {},
): KubeObject {
  return {
    apiVersion: `multicluster.x-k8s.io/${options.version ?? 'v1alpha1'}`,
    kind: 'ServiceImport',
    metadata: {
      name,
      namespace,
      annotations: { 'lighthouse.submariner.io/use-clusterset-ip': String((options.ips ?? []).length > 0), ...options.annotations },
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: { type: options.type ?? 'ClusterSetIP', ports: options.ports ?? [], ...(options.ips ? { ips: options.ips } : {}) },
  };
}

export interface EndpointSpec {
  addresses: string[];
  ready?: boolean;
  hostname?: string;
  targetRef?: { kind: string; name: string };
}

export function slice(options: {
  service: string;
  namespace: string;
  cluster: string;
  name?: string;
  sliceNamespace?: string;
  headless?: boolean;
  addressType?: 'IPv4' | 'IPv6';
  endpoints: EndpointSpec[];
  ports?: PortSpec[];
  publishNotReady?: boolean;
  omitLabel?: string;
}): KubeObject {
  const labels: Record<string, string> = {
    'endpointslice.kubernetes.io/managed-by': 'lighthouse-agent.submariner.io',
    'multicluster.kubernetes.io/service-name': options.service,
    'lighthouse.submariner.io/sourceNamespace': options.namespace,
    'multicluster.kubernetes.io/source-cluster': options.cluster,
    'lighthouse.submariner.io/is-headless': String(options.headless ?? false),
  };
  if (options.omitLabel) delete labels[options.omitLabel];
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: options.name ?? `${options.service}-${options.cluster}${options.addressType === 'IPv6' ? '-v6' : ''}`,
      namespace: options.sliceNamespace ?? options.namespace,
      labels,
      annotations: { 'lighthouse.submariner.io/publish-not-ready-addresses': String(options.publishNotReady ?? false) },
    },
    addressType: options.addressType ?? 'IPv4',
    endpoints: options.endpoints.map((e) => ({
      addresses: e.addresses,
      ...(e.ready === undefined ? {} : { conditions: { ready: e.ready } }),
      ...(e.hostname ? { hostname: e.hostname } : {}),
      ...(e.targetRef ? { targetRef: e.targetRef } : {}),
    })),
    ports: options.ports ?? [],
  };
}

/** A ClusterSetIP slice: one endpoint carrying the cluster's service IP. */
export function serviceSlice(service: string, namespace: string, cluster: string, ip: string, ports: PortSpec[], ready = true, addressType: 'IPv4' | 'IPv6' = 'IPv4'): KubeObject {
  return slice({ service, namespace, cluster, endpoints: [{ addresses: [ip], ready }], ports, addressType });
}

export function submariner(): KubeObject {
  return { apiVersion: 'submariner.io/v1alpha1', kind: 'Submariner', metadata: { name: 'submariner', namespace: 'submariner-operator' }, spec: {} };
}

export function gateway(local: string, connections: [string, string][], haStatus = 'active', name = 'gw-1'): KubeObject {
  return {
    apiVersion: 'submariner.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: 'submariner-operator' },
    status: {
      haStatus,
      ...(local === '' ? {} : { localEndpoint: { cluster_id: local } }),
      connections: connections.map(([cluster, status]) => ({ status, endpoint: { cluster_id: cluster } })),
    },
  };
}

/** A temporary manifests directory. */
export interface ManifestDir {
  readonly path: string;
  /** Writes `objects` as one multi-document YAML file (replacing it). */
  write(file: string, objects: readonly KubeObject[]): Promise<void>;
  remove(file: string): Promise<void>;
  close(): Promise<void>;
}

export async function manifestDir(): Promise<ManifestDir> {
  const path = await mkdtemp(join(tmpdir(), 'lighthouse-'));
  return {
    path,
    async write(file, objects) {
      // Write then rename, as kubectl-style tools do, so a scan never sees half a file.
      const temp = join(path, `.${file}.tmp`);
      await writeFile(temp, objects.map((o) => stringify(o)).join('---\n'));
      const { rename } = await import('node:fs/promises');
      await rename(temp, join(path, file));
    },
    async remove(file) {
      await rm(join(path, file), { force: true });
    },
    async close() {
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** How to start a lighthouse server over a manifests directory. */
export interface StartOptions {
  /** Lines inside the `lighthouse` block besides `manifests`. */
  readonly options?: readonly string[];
  /** Server block keys (each gets `:0`), default `clusterset.local`. */
  readonly keys?: readonly string[];
  /** Arguments of `lighthouse` (its zones). */
  readonly args?: string;
  /** A directive after lighthouse (the next plugin), e.g. `whoami`. */
  readonly after?: string;
}

/** Starts a server block with lighthouse over the manifests in `dir`, on 127.0.0.1. */
export async function startLighthouse(dir: string, start: StartOptions = {}): Promise<TestServer> {
  const body = [`manifests ${dir}`, ...(start.options ?? [])].map((line) => `        ${line}`).join('\n');
  const keys = (start.keys ?? ['clusterset.local']).map((key) => `${key}:0`).join(' ');
  const after = start.after ? `    ${start.after}\n` : '';
  return startServer(`${keys} {\n    bind 127.0.0.1\n    lighthouse ${start.args ?? ''} {\n${body}\n    }\n${after}}\n`, {
    directives: directivesOf(bind, lighthouse, whoami),
  });
}

/** Zone-file lines of a reply's section, sorted (answer order is unspecified for headless). */
export function lines(reply: Reply, section: 'answers' | 'authorities' = 'answers'): string[] {
  return ((reply[section] ?? []) as { name: string; type: string; ttl?: number; data?: unknown }[])
    .map((rr) => {
      const data =
        (rr as { data?: unknown }).data === undefined
          ? ''
          : rr.type === 'SRV'
          ? `${(rr.data as { priority: number }).priority} ${(rr.data as { weight: number }).weight} ${(rr.data as { port: number }).port} ${(rr.data as { target: string }).target}.`
          : rr.type === 'SOA'
            ? `${(rr.data as { mname: string }).mname}.`
            : rr.type === 'TXT'
              ? (rr.data as Buffer[]).map((b) => `"${b.toString()}"`).join(' ')
              : rr.type === 'PTR'
                ? `${String(rr.data)}.`
                : rr.type === 'HINFO'
                  ? `"${(rr.data as { cpu: string }).cpu}" "${(rr.data as { os: string }).os}"`
                  : String(rr.data);
      return `${rr.name}. ${(rr as { ttl?: number }).ttl} IN ${rr.type} ${data}`;
    })
    .sort();
}

export type Transport = 'udp' | 'tcp';
export const transports: readonly Transport[] = ['udp', 'tcp'];

/** Sends one query and returns the rcode, the sorted answer lines and the reply. */
export async function ask(server: TestServer, name: string, type: RecordType, transport: Transport = 'udp'): Promise<{ rcode: string; answers: string[]; reply: Reply }> {
  const reply = await query({ port: server.port() }, name, type, { transport });
  return { rcode: rcodeOf(reply), answers: lines(reply), reply };
}

export interface Row {
  readonly id: string;
  readonly name: string;
  readonly type: 'A' | 'AAAA' | 'SRV' | 'TXT' | 'PTR' | 'MX' | 'ANY' | 'NS';
  readonly rcode: string;
  /** Answer lines, sorted on comparison; omitted = not compared. */
  readonly answers?: readonly string[];
  /**
   * Who must have answered, when a `whoami` follows lighthouse: `next` (it fell through, so the
   * additional section holds whoami's address) or `lighthouse` (no whoami records).
   */
  readonly answeredBy?: 'lighthouse' | 'next';
}

export const a = (name: string, ip: string): string => `${name}. 5 IN A ${ip}`;
export const aaaa = (name: string, ip: string): string => `${name}. 5 IN AAAA ${ip}`;
export const srv = (name: string, port: number, target: string): string => `${name}. 5 IN SRV 0 50 ${port} ${target}.`;

/** Starts a server over `objects` and checks every row over UDP and TCP. */
export async function table(t: TestContext, objects: readonly KubeObject[], rows: readonly Row[], start: StartOptions = {}): Promise<void> {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('objects.yaml', objects);
  const server = await startLighthouse(dir.path, start);
  t.after(() => server.close());
  for (const transport of transports) {
    for (const row of rows) {
      const got = await ask(server, row.name, row.type as never, transport);
      const what = `${row.id} ${transport} ${row.name} ${row.type}`;
      assert.equal(got.rcode, row.rcode, `${what}: rcode`);
      if (row.answers) assert.deepEqual(got.answers, [...row.answers].sort(), `${what}: answers`);
      if (row.answeredBy) {
        const byWhoami = (got.reply.additionals ?? []).some((rr) => rr.type === 'SRV' && rr.name.startsWith(`_${transport}.`));
        assert.equal(byWhoami, row.answeredBy === 'next', `${what}: answered by ${row.answeredBy}`);
      }
    }
  }
}


/** A store and table with no server, for state-level tests (Lighthouse's coredns/resolver tests). */
export interface Model {
  readonly store: ServiceStore;
  readonly table: AnswerTable;
  /** Applies objects as watch events: ServiceImports, slices, Gateways, Submariners by kind. */
  upsert(...objects: KubeObject[]): void;
  remove(...objects: KubeObject[]): void;
  /** Looks `name` up like the handler does (advancing balancers, counting records served) and decodes the answer. */
  look(name: string, type?: 'A' | 'AAAA' | 'SRV'): Looked;
  /** Records served from `cluster` so far, as `coredns_lighthouse_records_served_total` counts them. */
  served(cluster: string): number;
}

export interface Looked {
  readonly rcode: string;
  /** A/AAAA addresses, or `port target` for SRV, in answer order. */
  readonly data: string[];
}

export function model(options: { clusterId?: string; families?: { v4: boolean; v6: boolean }; zones?: string[]; cacheCapacity?: number } = {}): Model {
  const store = new ServiceStore(options.clusterId ?? '');
  const cells = new Map<string, { value: number }>();
  const table = new AnswerTable(store, {
    zones: options.zones ?? ['clusterset.local.'],
    ttlSeconds: 5,
    families: options.families ?? { v4: true, v6: false },
    servedCell: (cluster) => {
      let cell = cells.get(cluster);
      if (!cell) cells.set(cluster, (cell = { value: 0 }));
      return cell;
    },
  }, options.cacheCapacity === undefined ? {} : { cacheCapacity: options.cacheCapacity });
  table.open();
  const sinkOf = (object: KubeObject): ObjectSink => {
    switch (object.kind) {
      case 'ServiceImport':
        return store.serviceImports((object.apiVersion ?? '').split('/')[1] ?? 'v1alpha1');
      case 'EndpointSlice':
        return store.endpointSlices;
      case 'Gateway':
        return store.gateways;
      default:
        return store.submariners;
    }
  };
  return {
    store,
    table,
    upsert: (...objects) => objects.forEach((o) => sinkOf(o).upsert(o)),
    remove: (...objects) => objects.forEach((o) => sinkOf(o).remove(o)),
    look(name, type = 'A') {
      const qname = `${name}.`.toLowerCase();
      const zone = table.matchZone(qname);
      assert.ok(zone, `${name} is in a zone`);
      const qtype = type === 'A' ? 1 : type === 'AAAA' ? 28 : 33;
      const answer = table.lookup(type === 'SRV' ? qname.replace(/(^|\.)_/g, '$1') : qname, qtype, zone);
      countServed(answer.served);
      const header = Buffer.alloc(12);
      header.writeUInt16BE(0x8400 | answer.rcode, 2);
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(answer.ancount, 6);
      const question = dnsPacket.encode({ type: 'query', id: 0, questions: [{ name, type, class: 'IN' }] }).subarray(12);
      const reply = decodeReply(Buffer.concat([header, question, answer.body]));
      const data = ((reply.answers ?? []) as { type: string; data: unknown }[]).map((rr) =>
        rr.type === 'SRV' ? `${(rr.data as { port: number }).port} ${(rr.data as { target: string }).target}` : String(rr.data),
      );
      return { rcode: rcodeOf(reply), data };
    },
    served: (cluster) => cells.get(cluster)?.value ?? 0,
  };
}

/** Polls `check` until it passes, failing with its last error after `timeoutMs` (testkit's, with a longer default for watches). */
export function eventually(check: Parameters<typeof waitUntil>[0], timeoutMs = 5000, what?: string): Promise<void> {
  return waitUntil(check, timeoutMs, what);
}
