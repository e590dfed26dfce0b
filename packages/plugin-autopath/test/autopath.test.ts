/**
 * CoreDNS's plugin/autopath autopath_test.go over UDP and TCP (a search path from a resolv.conf,
 * CoreDNS's `nextHandler` as the plugin after autopath), and `autopath @kubernetes` with `pods
 * verified` against the test API server over HTTPS: the asking pod found by its address.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Packet } from 'dns-packet';
import bind from '@foghorn/plugin-bind';
import { createKubernetesPlugin } from '@foghorn/plugin-kubernetes';
import { Rcode, replyTo } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { checkCases, directivesOf, eventually, metric, query, rcodeOf, startServer, tempFile, testPlugin } from '@foghorn/testkit';
import type { CheckOptions, TestServer } from '@foghorn/testkit';
import { makeTempDir, startKubeApiServer, writeKubeconfig } from '@foghorn/testkit/kube';
import type { ApiObject, ApiResource } from '@foghorn/testkit/kube';
import autopath from '../src/index.js';

/**
 * autopath_test.go `nextHandler`: NXDOMAIN (with an SOA) or an A record `NAME 3600 IN A
 * 127.0.0.53` per the map, SERVFAIL for any other name.
 */
function nextHandler(names: Record<string, 'NXDOMAIN' | 'NOERROR'>) {
  return testPlugin('answers', () => ({
    name: 'answers',
    serveDNS(req: Request, w) {
      const rcode = names[req.qname];
      if (rcode === undefined) return Rcode.SERVFAIL;
      const reply = replyTo(req, rcode === 'NXDOMAIN' ? Rcode.NXDOMAIN : Rcode.NOERROR) as Packet;
      if (rcode === 'NXDOMAIN') reply.authorities = [{ name: 'example.org', type: 'SOA', class: 'IN', ttl: 1800, data: { mname: 'example.org', rname: 'example.org', serial: 1502165581, refresh: 14400, retry: 3600, expire: 604800, minimum: 14400 } }];
      else reply.answers = [{ name: req.name, type: 'A', class: 'IN', ttl: 3600, data: '127.0.0.53' }];
      w.write(reply);
      return rcode === 'NXDOMAIN' ? Rcode.NXDOMAIN : Rcode.NOERROR;
    },
  }));
}

const both: CheckOptions = { transports: ['udp', 'tcp'] };

async function staticServer(t: TestContext, search: string): Promise<TestServer> {
  const resolv = tempFile(t, `nameserver 1.2.3.4\nsearch ${search}\noptions ndots:5\n`, 'resolv.conf');
  const answers = nextHandler({ 'b.example.org.': 'NXDOMAIN', 'b.com.': 'NOERROR', 'a.example.com.': 'NOERROR', 'a.default.svc.cluster.local.': 'NOERROR', 'google.com.': 'NOERROR', 'a.b.svc.cluster.local.': 'NOERROR' });
  const dns = await startServer(`.:0 {\n    bind 127.0.0.1\n    autopath ${resolv}\n    answers\n}\n`, { directives: directivesOf(bind, autopath, answers) });
  t.after(() => dns.close());
  return dns;
}

test('TestAutoPath: the search path walked on the server, a CNAME to the name found first', async (t) => {
  const dns = await staticServer(t, 'example.org example.com com');
  await checkCases({ port: dns.port() }, [
    // b.example.org NXDOMAIN, b.example.com SERVFAIL (skipped), b.com found.
    { qname: 'b.example.org.', qtype: 'A', ordered: true, answer: ['b.example.org. 3600 IN CNAME b.com.', 'b.com. 3600 IN A 127.0.0.53'] },
    // Not under the first search domain: no expansion.
    { qname: 'a.example.com.', qtype: 'A', answer: ['a.example.com. 3600 IN A 127.0.0.53'] },
  ], both);
  const success = await metric(dns, 'coredns_autopath_success_total');
  assert.equal(success, 2, 'one success per transport');
});

test('TestAutoPathNoAnswer: every try fails, and the first failure is the reply', async (t) => {
  const dns = await staticServer(t, 'example.org example.com com');
  for (const transport of ['udp', 'tcp'] as const) {
    assert.equal(rcodeOf(await query({ port: dns.port() }, 'c.example.org.', 'A', { transport })), 'SERVFAIL');
  }
});

test('TestInSearchPath: only names under the first search domain are walked', async (t) => {
  const dns = await staticServer(t, 'default.svc.cluster.local svc.cluster.local cluster.local');
  await checkCases({ port: dns.port() }, [
    { qname: 'google.com.', qtype: 'A', answer: ['google.com. 3600 IN A 127.0.0.53'] },
    { qname: 'a.default.svc.cluster.local.', qtype: 'A', answer: ['a.default.svc.cluster.local. 3600 IN A 127.0.0.53'] },
    { qname: 'a.b.svc.cluster.local.', qtype: 'A', answer: ['a.b.svc.cluster.local. 3600 IN A 127.0.0.53'] },
  ], both);
  // The first search domain itself cannot be split into a name and the domain (dnsutil.TrimZone).
  assert.equal(rcodeOf(await query({ port: dns.port() }, 'default.svc.cluster.local.', 'A')), 'SERVFAIL');
});

const resources: readonly ApiResource[] = [
  { group: '', version: 'v1', plural: 'services', kind: 'Service', builtin: true },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', builtin: true },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', builtin: true },
  { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', builtin: true, namespaced: false },
];

const cluster: ApiObject[] = [
  ...['default', 'other'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'other' }, spec: { clusterIP: '10.0.0.20', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'default' }, spec: { clusterIP: '10.0.0.30', ports: [{ name: 'pg', protocol: 'TCP', port: 5432 }] } },
  // The client: a pod whose address is the test's own.
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client', namespace: 'default' }, status: { phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } },
];

/** The name outside the cluster the walk ends at: answered by the plugin after kubernetes (forward's place). */
const outside = nextHandler({ 'example.net.': 'NOERROR', 'example.net.corp.example.': 'NXDOMAIN' });

async function kubeServer(t: TestContext, pods: string): Promise<TestServer> {
  const api = await startKubeApiServer({ resources, tls: true, token: 'autopath' });
  t.after(() => api.close());
  for (const object of cluster) api.apply(structuredClone(object));
  const dir = makeTempDir();
  t.after(() => dir.remove());
  const kubeconfig = writeKubeconfig(join(dir.path, 'config'), [{ name: 'test', server: api.url, ca: api.ca!, token: 'autopath' }]);
  const kubernetes = createKubernetesPlugin({ resolvSearch: async () => ['corp.example.'], watch: { backoffInitialMs: 20, backoffMaxMs: 200, logIntervalMs: 60_000 } });
  const corefile = `.:0 {\n    bind 127.0.0.1\n    autopath @kubernetes\n    kubernetes cluster.local {\n        kubeconfig ${kubeconfig} test\n        pods ${pods}\n    }\n    answers\n}\n`;
  const dns = await startServer(corefile, { directives: directivesOf(bind, autopath, kubernetes, outside) });
  t.after(() => dns.close());
  await eventually(async () => assert.equal(rcodeOf(await query({ port: dns.port() }, 'db.default.svc.cluster.local.', 'A')), 'NOERROR'), 5000, 'kubernetes synced');
  return dns;
}

test('autopath @kubernetes: the pod search path, namespace first, then the host search domains', async (t) => {
  const dns = await kubeServer(t, 'verified');
  const before = await metric(dns, 'coredns_autopath_success_total');
  await checkCases({ port: dns.port() }, [
    // `db` from a pod in default: the first try answers, no CNAME.
    { qname: 'db.default.svc.cluster.local.', qtype: 'A', answer: ['db.default.svc.cluster.local. 5 IN A 10.0.0.30'] },
    // `web.other`: web.other.default.svc... does not exist, web.other.svc.cluster.local does.
    { qname: 'web.other.default.svc.cluster.local.', qtype: 'A', ordered: true, answer: ['web.other.default.svc.cluster.local. 5 IN CNAME web.other.svc.cluster.local.', 'web.other.svc.cluster.local. 5 IN A 10.0.0.20'] },
    // An outside name: the three cluster domains and corp.example fail, the name as asked is found.
    { qname: 'example.net.default.svc.cluster.local.', qtype: 'A', ordered: true, answer: ['example.net.default.svc.cluster.local. 3600 IN CNAME example.net.', 'example.net. 3600 IN A 127.0.0.53'] },
    // Under another namespace's domain: not the pod's first search domain, no walk.
    { qname: 'example.net.other.svc.cluster.local.', qtype: 'A', rcode: 'NXDOMAIN', ns: ['cluster.local. 5 IN SOA ns.dns.cluster.local. hostmaster.cluster.local. 0 7200 1800 86400 5'] },
  ], { ...both, soaSerial: false });
  // Every try that is not NXDOMAIN counts, the first one too (autopath.go): 3 names, 2 transports.
  assert.equal((await metric(dns, 'coredns_autopath_success_total')) - before, 6);
});

test('autopath @kubernetes without pods verified does nothing, as in CoreDNS', async (t) => {
  const dns = await kubeServer(t, 'insecure');
  const reply = await query({ port: dns.port() }, 'web.other.default.svc.cluster.local.', 'A');
  assert.equal(rcodeOf(reply), 'NXDOMAIN');
});

test('autopath @NAME: a plugin of the block that gives no search path is a startup error; one not in the block, none', async (t) => {
  const answers = nextHandler({});
  await assert.rejects(
    startServer('.:0 {\n    bind 127.0.0.1\n    autopath @answers\n    answers\n}\n', { directives: directivesOf(bind, autopath, answers) }),
    /plugin\/autopath: .*answers does not implement the AutoPather interface/,
  );
  const dns = await startServer('.:0 {\n    bind 127.0.0.1\n    autopath @kubernetes\n    answers\n}\n', { directives: directivesOf(bind, autopath, answers) });
  t.after(() => dns.close());
  assert.equal(rcodeOf(await query({ port: dns.port() }, 'a.example.', 'A')), 'SERVFAIL');
});
