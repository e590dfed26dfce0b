/**
 * The cluster-DNS Corefiles Kubernetes distributions install (test/stock-corefiles/: kubeadm
 * v1.32+ and v1.23–v1.31, k3s with NodeHosts, RKE2, CoreDNS's multicluster example), each run by
 * the real `foghorn` process against the test API server serving examples/cluster/, answering
 * what a cluster asks of its DNS.
 *
 * What the test changes in a Corefile, and only that (checked by the first test):
 * - listen addresses: `.:53` becomes `.:PORT`, and `health`, `ready` and `prometheus` get
 *   `127.0.0.1:PORT` with free ports, so runs never collide with each other or the machine;
 * - the `/etc/resolv.conf` of `forward` becomes the local upstream's `127.0.0.1:PORT`: a
 *   resolv.conf names nameservers without ports (port 53 always), which an unprivileged test
 *   cannot listen on; forward's own tests cover reading resolv.conf;
 * - k3s's `/etc/coredns/NodeHosts` becomes a temporary file with two node lines.
 * The API server comes from `$KUBECONFIG`, which the kubernetes plugin reads when the Corefile
 * gives neither `kubeconfig` nor `endpoint` and there is no in-cluster service account (as
 * client-go's loading rules do for CoreDNS run outside a pod).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { eventually, freeDnsPort, freeTcpPort, httpGet, query, rcodeOf, startUpstream } from '@foghorn/testkit';
import type { FakeUpstream, Reply } from '@foghorn/testkit';
import { startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject, KubeApiServer } from '@foghorn/testkit/kube';
import { repoRoot, runCli, RunningCli } from './cli-helpers.js';
import { exampleObjects } from './example-objects.js';

const stockDir = join(repoRoot, 'test/stock-corefiles');
const stock = (name: string): string => readFileSync(join(stockDir, name), 'utf8');
const corefiles = readdirSync(stockDir).filter((name) => name.endsWith('.conf')).sort();

interface Ports {
  readonly dns: number;
  readonly health: number;
  readonly ready: number;
  readonly metrics: number;
}

/** The Corefile as the test runs it: see the file comment for what changes and why. */
function forTest(text: string, ports: Ports, forwardTo: string, nodeHosts: string): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .replace(/^\.:53 \{$/, `.:${ports.dns} {`)
        .replace(/^(\s*health)(\s*\{?\s*)$/, (_, directive: string, rest: string) => `${directive} 127.0.0.1:${ports.health}${rest}`)
        .replace(/^(\s*ready)\s*$/, (_, directive: string) => `${directive} 127.0.0.1:${ports.ready}`)
        .replace(/^(\s*prometheus\s+)\S+/, (_, directive: string) => `${directive}127.0.0.1:${ports.metrics}`)
        .replace(/^(\s*forward\s+\.\s+)\/etc\/resolv\.conf\b/, (_, directive: string) => `${directive}${forwardTo}`)
        .replace(/^(\s*hosts\s+)\/etc\/coredns\/NodeHosts\b/, (_, directive: string) => `${directive}${nodeHosts}`),
    )
    .join('\n');
}

/** A ServiceImport for the multicluster zone. */
const webImport: ApiObject = {
  apiVersion: 'multicluster.x-k8s.io/v1alpha1',
  kind: 'ServiceImport',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { type: 'ClusterSetIP', ips: ['100.64.0.10'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
};

/** `promise`, or a rejection naming `what` after `ms`: nothing here may wait forever. */
function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what())), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Cluster {
  readonly api: KubeApiServer;
  readonly upstream: FakeUpstream;
  readonly env: NodeJS.ProcessEnv;
  readonly dir: string;
  /** The CLIs {@link run} started on this cluster. */
  readonly clis: RunningCli[];
}

async function startCluster(t: TestContext): Promise<Cluster> {
  const clis: RunningCli[] = [];
  // After hooks run in the order they were added: the CLIs end first, so no server below waits
  // on a connection a still-running CLI keeps opening.
  t.after(() => {
    for (const cli of clis) if (cli.child.exitCode === null) cli.kill('SIGKILL');
  });
  const api = await startKubeApiServer();
  t.after(() => api.close());
  for (const object of [...exampleObjects('cluster'), webImport]) api.apply(object);
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-stock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: writeKubeconfig(join(dir, 'kubeconfig'), [{ name: 'test', server: api.url }]) };
  // Outside a pod: no in-cluster configuration to take precedence over $KUBECONFIG.
  delete env['KUBERNETES_SERVICE_HOST'];
  delete env['KUBERNETES_SERVICE_PORT'];
  return { api, upstream, env, dir, clis };
}

async function freePorts(): Promise<Ports> {
  return { dns: await freeDnsPort(), health: await freeTcpPort(), ready: await freeTcpPort(), metrics: await freeTcpPort() };
}

/** Starts `foghorn -conf` on the rewritten Corefile `name`. */
async function run(cluster: Cluster, name: string, ports: Ports, forwardTo: string): Promise<RunningCli> {
  const nodeHosts = join(cluster.dir, `NodeHosts-${name}`);
  writeFileSync(nodeHosts, '172.18.0.2 k3s-server\n172.18.0.3 k3s-agent1\n');
  const conf = join(cluster.dir, name);
  writeFileSync(conf, forTest(stock(name), ports, forwardTo, nodeHosts));
  const cli = new RunningCli(['-conf', conf], { env: cluster.env });
  cluster.clis.push(cli);
  return cli;
}

/** `name TTL type data` of each record of a section, sorted; without the TTL when `ttl` is false. */
function records(section: Reply['answers'], ttl = true): string[] {
  return (section ?? [])
    .map((rr) => {
      const r = rr as { name: string; ttl?: number; type: string; data?: unknown };
      const data = typeof r.data === 'object' && r.data !== null && 'target' in r.data ? JSON.stringify(r.data) : String(r.data);
      return ttl ? `${r.name} ${r.ttl} ${r.type} ${data}` : `${r.name} ${r.type} ${data}`;
    })
    .sort();
}

test('the test changes only listen addresses, the forward target and the NodeHosts path', () => {
  assert.deepEqual(corefiles, ['k3s.conf', 'kubeadm-1.23.conf', 'kubeadm-1.32.conf', 'multicluster.conf', 'rke2.conf']);
  const ports: Ports = { dns: 1, health: 2, ready: 3, metrics: 4 };
  for (const name of corefiles) {
    const original = stock(name).split('\n');
    const rewritten = forTest(stock(name), ports, '127.0.0.1:5', '/tmp/NodeHosts').split('\n');
    assert.equal(rewritten.length, original.length);
    const changed = original.filter((line, i) => line !== rewritten[i]).map((line) => line.trim().split(/\s+/)[0]);
    const expected = ['.:53', 'health', 'ready', 'prometheus', 'hosts', 'forward'].filter((word) => original.some((line) => line.trim().split(/\s+/)[0] === word));
    assert.deepEqual(changed.sort(), expected.sort(), name);
  }
});

test('stock cluster-DNS Corefiles answer a cluster\'s questions', { concurrency: true, timeout: 90_000 }, async (t) => {
  const cluster = await startCluster(t);
  await Promise.all(
    corefiles.map((name) =>
      t.test(name, async (t) => {
        const text = stock(name);
        const ttl = /^\s*ttl 30$/m.test(text) ? 30 : 5;
        const ports = await freePorts();
        const cli = await run(cluster, name, ports, cluster.upstream.address);
        const dns = { port: ports.dns };
        // Ready once every watched resource has been listed: then the answers are complete.
        const get = (port: number, path: string) => within(httpGet(port, path), 2000, () => `GET ${path}: no reply`);
        await eventually(async () => assert.equal((await get(ports.ready, '/ready')).status, 200), 20_000).catch((error: Error) => {
          throw new Error(`${error.message}\n${cli.output}`);
        });
        assert.equal((await get(ports.health, '/health').catch(() => ({ status: 0 }))).status, /^\s*health/m.test(text) ? 200 : 0);

        const api = await query(dns, 'kubernetes.default.svc.cluster.local', 'A');
        assert.deepEqual(records(api.answers), [`kubernetes.default.svc.cluster.local ${ttl} A 10.96.0.1`]);
        assert.equal(api.flag_aa, true);

        const srv = await query(dns, 'kube-dns.kube-system.svc.cluster.local', 'SRV');
        const target = 'kube-dns.kube-system.svc.cluster.local';
        // Three ports, but 53/UDP and 53/TCP give the same target and port, which CoreDNS's
        // plugin.SRV (plugin/backend_lookup.go) drops as a duplicate after weighing all three.
        assert.deepEqual(records(srv.answers), [53, 9153].map((port) => `${target} ${ttl} SRV ${JSON.stringify({ priority: 0, weight: 33, port, target })}`));
        assert.deepEqual(records(srv.additionals).filter((r) => !r.includes(' OPT ')), [`${target} ${ttl} A 10.96.0.10`]);

        assert.deepEqual(records((await query(dns, '10.0.96.10.in-addr.arpa', 'PTR')).answers), [`10.0.96.10.in-addr.arpa ${ttl} PTR ${target}`]);
        assert.deepEqual(records((await query(dns, '20.1.244.10.in-addr.arpa', 'PTR')).answers), [`20.1.244.10.in-addr.arpa ${ttl} PTR db-0.db.shop.svc.cluster.local`]);
        assert.deepEqual(records((await query(dns, '1-2-3-4.default.pod.cluster.local', 'A')).answers), [`1-2-3-4.default.pod.cluster.local ${ttl} A 1.2.3.4`]);
        assert.equal(rcodeOf(await query(dns, 'nothing.shop.svc.cluster.local', 'A')), 'NXDOMAIN');

        // Names outside the cluster, unknown addresses (fallthrough in-addr.arpa) and an
        // ExternalName's target go through forward to the upstream (TTLs as cache caps them).
        assert.deepEqual(records((await query(dns, 'www.example.org', 'A')).answers, false), ['www.example.org A 192.0.2.1']);
        assert.equal(rcodeOf(await query(dns, '4.3.2.1.in-addr.arpa', 'PTR')), 'NOERROR');
        const external = await query(dns, 'payments.shop.svc.cluster.local', 'A');
        assert.deepEqual(records(external.answers, false), ['payments.example.com A 192.0.2.1', 'payments.shop.svc.cluster.local CNAME payments.example.com']);
        const seen = cluster.upstream.lookups.map((q) => `${q.name} ${q.type}`);
        for (const asked of ['www.example.org A', '4.3.2.1.in-addr.arpa PTR', 'payments.example.com A']) assert.ok(seen.includes(asked), `${asked} reached the upstream`);

        if (name === 'k3s.conf') {
          assert.deepEqual(records((await query(dns, 'k3s-agent1', 'A')).answers), ['k3s-agent1 30 A 172.18.0.3'], 'hosts ttl 60, capped by cache 30');
          assert.match(cli.output, /\[WARNING\] No files matching import glob pattern: \/etc\/coredns\/custom\/\*\.override/);
        }
        if (name === 'multicluster.conf') {
          assert.deepEqual(records((await query(dns, 'web.shop.svc.clusterset.local', 'A')).answers), [`web.shop.svc.clusterset.local ${ttl} A 100.64.0.10`]);
        }
        if (/^\s*prometheus/m.test(text)) {
          assert.match((await get(ports.metrics, '/metrics')).text, /^coredns_dns_requests_total\{/m);
        }
        assert.ok(cli.output.includes(`[INFO] plugin/kubernetes: watching ${cluster.api.url} ($KUBECONFIG)`), cli.output);
        assert.doesNotMatch(cli.output, /\[ERROR\]|\[FATAL\]/);
        assert.equal(cli.child.exitCode, null, 'still serving');
      }),
    ),
  );
});

test('kubeadm\'s Corefile forwarding to itself: loop logs FATAL and foghorn exits with status 1', async (t) => {
  const cluster = await startCluster(t);
  const ports = await freePorts();
  const cli = await run(cluster, 'kubeadm-1.32.conf', ports, `127.0.0.1:${ports.dns}`);
  assert.equal(await within(cli.exited, 30_000, () => `no exit within 30 s:\n${cli.output}`), 1, cli.output);
  assert.match(
    cli.output,
    new RegExp(
      `^\\[FATAL\\] plugin/loop: Loop \\(127\\.0\\.0\\.1:\\d+ -> [^ ]*:${ports.dns}\\) detected for zone "\\.", see https://coredns\\.io/plugins/loop#troubleshooting\\. Query: "HINFO \\d+\\.\\d+\\."$`,
      'm',
    ),
  );
});

test('Corefile.example answers the README\'s cluster.local names from examples/cluster/', async () => {
  const web = await runCli(['-conf', 'Corefile.example', '-query', 'web.shop.svc.cluster.local']);
  assert.equal(web.code, 0, web.stderr);
  assert.ok(web.stdout.includes('\n;; ANSWER SECTION:\nweb.shop.svc.cluster.local.\t30\tIN\tA\t10.96.100.10\n'), web.stdout);
  const db = await runCli(['-conf', 'Corefile.example', '-query', '_postgres._tcp.db.shop.svc.cluster.local', 'SRV']);
  assert.equal(db.code, 0, db.stderr);
  for (const pod of ['db-0', 'db-1']) assert.ok(db.stdout.includes(`\t30\tIN\tSRV\t0 50 5432 ${pod}.db.shop.svc.cluster.local.\n`), db.stdout);
});
