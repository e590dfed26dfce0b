/**
 * The outcomes of docs/compatibility.md, "Answers", case by case, and what Foghorn adds from KEP-1645: the zone's SOA on
 * every negative answer, the `dns-version` TXT record, PTR for clusterset, cluster and endpoint
 * addresses. Also the reply's shape: question case kept, AA set, OPT echoed, TC when too large.
 */
import assert from 'node:assert/strict';
import { promises as dns } from 'node:dns';
import { test } from 'node:test';
import { query, rcodeOf } from '@foghorn/testkit';
import { a, ask, gateway, http, lines, manifestDir, pop3, serviceImport, serviceSlice, slice, srv, startLighthouse, submariner, table, transports } from './fixtures.js';
import type { KubeObject } from '../src/index.js';

const Z = 'clusterset.local';
const svc1 = `service1.namespace1.svc.${Z}`;
const hl = `hl.namespace1.svc.${Z}`;
const SIP1 = '100.96.156.101';
const EIP1 = '100.96.157.101';
const EIP2 = '100.96.157.102';

const objects = (): KubeObject[] => [
  serviceImport('service1', 'namespace1', { ports: [http] }),
  serviceSlice('service1', 'namespace1', 'cluster1', SIP1, [http]),
  serviceImport('hl', 'namespace1', { type: 'Headless', ports: [http] }),
  slice({ service: 'hl', namespace: 'namespace1', cluster: 'cluster1', headless: true, endpoints: [{ addresses: [EIP1], hostname: 'web-0' }], ports: [http] }),
  slice({ service: 'hl', namespace: 'namespace1', cluster: 'cluster2', headless: true, endpoints: [{ addresses: [EIP2], hostname: 'web-0' }], ports: [pop3] }),
  serviceImport('vip', 'namespace1', { ips: ['243.1.0.1'], ports: [http] }),
  serviceSlice('vip', 'namespace1', 'cluster1', '100.96.156.103', [http]),
];

test('every outcome case gets its rcode (A, AAAA with IPv6 unsupported, SRV)', async (t) => {
  await table(t, objects(), [
    { id: 'other type', name: svc1, type: 'MX', rcode: 'NOTIMP', answers: [] },
    { id: 'other type', name: svc1, type: 'NS', rcode: 'NOTIMP' },
    // RFC 8482 (Lighthouse answers NOTIMP): the synthesized HINFO where the name exists.
    { id: 'ANY', name: svc1, type: 'ANY', rcode: 'NOERROR', answers: [`${svc1}. 8482 IN HINFO "ANY obsoleted" "See RFC 8482"`] },
    { id: 'ANY on a cluster name', name: `cluster1.${svc1}`, type: 'ANY', rcode: 'NOERROR', answers: [`cluster1.${svc1}. 8482 IN HINFO "ANY obsoleted" "See RFC 8482"`] },
    { id: 'ANY on a hostname', name: `web-0.cluster1.${hl}`, type: 'ANY', rcode: 'NOERROR', answers: [`web-0.cluster1.${hl}. 8482 IN HINFO "ANY obsoleted" "See RFC 8482"`] },
    { id: 'ANY on dns-version', name: `dns-version.${Z}`, type: 'ANY', rcode: 'NOERROR' },
    { id: 'ANY on an unknown service', name: `unknown.namespace1.svc.${Z}`, type: 'ANY', rcode: 'NXDOMAIN' },
    { id: 'ANY on an unknown hostname', name: `web-9.cluster1.${hl}`, type: 'ANY', rcode: 'NXDOMAIN' },
    { id: 'apex', name: Z, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'svc.Z', name: `svc.${Z}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'pod.Z', name: `pod.${Z}`, type: 'SRV', rcode: 'NXDOMAIN' },
    { id: '*.pod.Z', name: `service1.namespace1.pod.${Z}`, type: 'AAAA', rcode: 'NXDOMAIN' },
    { id: 'bad kind', name: `service1.namespace1.pood.${Z}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'namespace only', name: `namespace1.svc.${Z}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'too many labels', name: `too.long.cluster1.${svc1}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'too many labels', name: `a.b.c.cluster1.${svc1}`, type: 'SRV', rcode: 'NXDOMAIN' },
    { id: 'unknown service', name: `unknown.namespace1.svc.${Z}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'unknown service, IPv6 unsupported', name: `unknown.namespace1.svc.${Z}`, type: 'AAAA', rcode: 'NOERROR', answers: [] },
    { id: 'unknown service', name: `unknown.namespace1.svc.${Z}`, type: 'SRV', rcode: 'NXDOMAIN' },
    { id: 'unknown cluster', name: `cluster9.${svc1}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'unknown cluster', name: `cluster9.${svc1}`, type: 'SRV', rcode: 'NXDOMAIN' },
    { id: 'unknown cluster', name: `_http._tcp.cluster9.${svc1}`, type: 'SRV', rcode: 'NXDOMAIN' },
    { id: 'unknown port, known cluster', name: `_smtp._udp.cluster1.${svc1}`, type: 'SRV', rcode: 'NOERROR', answers: [] },
    { id: 'unknown hostname', name: `web-9.cluster1.${hl}`, type: 'A', rcode: 'NXDOMAIN' },
    { id: 'hostname', name: `web-0.cluster1.${hl}`, type: 'A', rcode: 'NOERROR', answers: [a(`web-0.cluster1.${hl}`, EIP1)] },
    { id: 'host ignored on ClusterSetIP', name: `anything.cluster1.${svc1}`, type: 'A', rcode: 'NOERROR', answers: [a(`anything.cluster1.${svc1}`, SIP1)] },
    { id: 'port missing on a selected record', name: `_http._tcp.${hl}`, type: 'SRV', rcode: 'NOERROR', answers: [] },
    { id: 'port present on the cluster', name: `_http._tcp.cluster1.${hl}`, type: 'SRV', rcode: 'NOERROR', answers: [srv(`_http._tcp.cluster1.${hl}`, 8080, `web-0.cluster1.${hl}`)] },
    { id: 'success headless', name: hl, type: 'A', rcode: 'NOERROR', answers: [a(hl, EIP1), a(hl, EIP2)] },
    { id: 'clusterset IP', name: `vip.namespace1.svc.${Z}`, type: 'A', rcode: 'NOERROR', answers: [a(`vip.namespace1.svc.${Z}`, '243.1.0.1')] },
  ]);
});

test('with IPv6 supported an unknown service is NXDOMAIN for AAAA and a cluster label is parsed as for A', async (t) => {
  await table(
    t,
    objects(),
    [
      { id: 'unknown service, IPv6', name: `unknown.namespace1.svc.${Z}`, type: 'AAAA', rcode: 'NXDOMAIN' },
      { id: 'no IPv6 data', name: svc1, type: 'AAAA', rcode: 'NOERROR', answers: [] },
      // Foghorn parses AAAA like A (KEP-1645); Lighthouse answers these as the bare service.
      { id: 'unknown cluster, AAAA', name: `cluster9.${svc1}`, type: 'AAAA', rcode: 'NXDOMAIN' },
      { id: 'too long, AAAA', name: `a.b.c.d.${svc1}`, type: 'AAAA', rcode: 'NXDOMAIN' },
    ],
    { options: ['cluster_cidr 10.0.0.0/16 fd00::/48'] },
  );
});

test('ClusterSetIP without a healthy connected cluster and headless without connected clusters are NODATA', async (t) => {
  await table(t, [...objects(), submariner(), gateway('', [])], [
    { id: 'ClusterSetIP none connected', name: svc1, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'ClusterSetIP none connected', name: svc1, type: 'SRV', rcode: 'NOERROR', answers: [] },
    { id: 'headless none connected', name: hl, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'headless none connected', name: hl, type: 'SRV', rcode: 'NOERROR', answers: [] },
    { id: 'cluster named', name: `cluster1.${hl}`, type: 'A', rcode: 'NOERROR', answers: [a(`cluster1.${hl}`, EIP1)] },
  ]);
});

test('a name outside every server block is REFUSED by the server', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('objects.yaml', objects());
  const server = await startLighthouse(dir.path);
  t.after(() => server.close());
  for (const transport of transports) assert.equal((await ask(server, 'foo.cluster.local', 'A', transport)).rcode, 'REFUSED');
});

test('negative answers carry the zone SOA and positive ones none (RFC 2308)', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('objects.yaml', objects());
  const server = await startLighthouse(dir.path, { keys: ['ClusterSet.Local'] });
  t.after(() => server.close());
  for (const transport of transports) {
    for (const [name, type, rcode] of [
      [`unknown.namespace1.svc.${Z}`, 'A', 'NXDOMAIN'],
      [svc1, 'AAAA', 'NOERROR'],
      [`_smtp._udp.${svc1}`, 'SRV', 'NOERROR'],
      [`UNKNOWN.namespace1.svc.ClusterSet.LOCAL`, 'A', 'NXDOMAIN'],
    ] as const) {
      const { reply } = await ask(server, name, type, transport);
      assert.equal(rcodeOf(reply), rcode);
      assert.equal(reply.answers?.length, 0);
      const soa = reply.authorities?.[0] as { name: string; ttl: number; type: string; data: { mname: string; rname: string; minimum: number; serial: number } };
      assert.equal(soa.type, 'SOA');
      // The owner points into the question, so it is spelled as the client spelled the zone.
      assert.equal(soa.name.toLowerCase(), Z);
      assert.equal(soa.name, name.slice(name.length - Z.length));
      assert.equal(soa.ttl, 5);
      assert.equal(soa.data.mname, `ns.dns.${Z}`);
      assert.equal(soa.data.rname, `hostmaster.${Z}`);
      assert.equal(soa.data.minimum, 5);
      assert.ok(soa.data.serial > 1_600_000_000, 'serial is the time of the last change');
    }
    const positive = (await ask(server, svc1, 'A', transport)).reply;
    assert.equal(positive.authorities?.length ?? 0, 0);
    const notimp = (await ask(server, svc1, 'MX', transport)).reply;
    assert.equal(notimp.authorities?.length ?? 0, 0);
  }
});

test('dns-version TXT answers the KEP schema version; other TXT names are NODATA or NXDOMAIN', async (t) => {
  await table(t, objects(), [
    { id: 'dns-version', name: `dns-version.${Z}`, type: 'TXT', rcode: 'NOERROR', answers: [`dns-version.${Z}. 5 IN TXT "1.0.0"`] },
    { id: 'dns-version A', name: `dns-version.${Z}`, type: 'A', rcode: 'NOERROR', answers: [] },
    { id: 'TXT on a service', name: svc1, type: 'TXT', rcode: 'NOERROR', answers: [] },
    { id: 'TXT on nothing', name: `unknown.namespace1.svc.${Z}`, type: 'TXT', rcode: 'NXDOMAIN' },
  ]);
});

test('PTR answers clusterset IPs, per-cluster service IPs and headless endpoints in configured reverse zones', async (t) => {
  await table(
    t,
    objects(),
    [
      { id: 'clusterset IP', name: '1.0.1.243.in-addr.arpa', type: 'PTR', rcode: 'NOERROR', answers: [`1.0.1.243.in-addr.arpa. 5 IN PTR vip.namespace1.svc.${Z}.`] },
      { id: 'cluster IP', name: '101.156.96.100.in-addr.arpa', type: 'PTR', rcode: 'NOERROR', answers: [`101.156.96.100.in-addr.arpa. 5 IN PTR cluster1.${svc1}.`] },
      { id: 'endpoint', name: '102.157.96.100.in-addr.arpa', type: 'PTR', rcode: 'NOERROR', answers: [`102.157.96.100.in-addr.arpa. 5 IN PTR web-0.cluster2.${hl}.`] },
      { id: 'unknown address', name: '9.9.96.100.in-addr.arpa', type: 'PTR', rcode: 'NXDOMAIN' },
      { id: 'PTR in the forward zone', name: svc1, type: 'PTR', rcode: 'NOERROR', answers: [] },
      { id: 'A in a reverse zone', name: '1.0.1.243.in-addr.arpa', type: 'A', rcode: 'NOERROR', answers: [] },
      { id: 'ANY at a PTR name', name: '1.0.1.243.in-addr.arpa', type: 'ANY', rcode: 'NOERROR', answers: ['1.0.1.243.in-addr.arpa. 8482 IN HINFO "ANY obsoleted" "See RFC 8482"'] },
      { id: 'ANY at an unknown address', name: '9.9.96.100.in-addr.arpa', type: 'ANY', rcode: 'NXDOMAIN' },
    ],
    { keys: [Z, '243.1.0.0/16', '100.96.0.0/16'], args: `${Z} 243.1.0.0/16 100.96.0.0/16` },
  );
});

test('the reply keeps the question case in owners and SRV target zones, sets AA and copies RD', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('objects.yaml', objects());
  const server = await startLighthouse(dir.path);
  t.after(() => server.close());
  for (const transport of transports) {
    const name = 'SERVICE1.Namespace1.svc.ClusterSet.Local';
    const reply = await query({ port: server.port() }, name, 'SRV', { transport, id: 4242 });
    assert.equal(reply.id, 4242);
    assert.equal(reply.flag_aa, true);
    assert.equal(reply.flag_rd, true);
    assert.equal(reply.flag_ra, false);
    assert.equal(reply.questions?.[0]?.name, name);
    assert.deepEqual(lines(reply), [`${name}. 5 IN SRV 0 50 8080 service1.namespace1.svc.ClusterSet.Local.`]);
    const any = await query({ port: server.port() }, name, 'ANY' as never, { transport });
    assert.equal(any.flag_aa, true);
    assert.deepEqual(lines(any), [`${name}. 8482 IN HINFO "ANY obsoleted" "See RFC 8482"`]);
    const headless = await query({ port: server.port() }, `_HTTP._TCP.cluster1.HL.namespace1.svc.clusterset.LOCAL`, 'SRV', { transport });
    assert.deepEqual(lines(headless), [`_HTTP._TCP.cluster1.HL.namespace1.svc.clusterset.LOCAL. 5 IN SRV 0 50 8080 web-0.cluster1.hl.namespace1.svc.clusterset.LOCAL.`]);
  }
});

test('an EDNS query gets its OPT echoed and a large headless answer is truncated over UDP only', async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  const endpoints = Array.from({ length: 60 }, (_, i) => ({ addresses: [`10.1.${i >> 8}.${(i & 0xff) + 1}`] }));
  await dir.write('objects.yaml', [serviceImport('big', 'ns', { type: 'Headless', ports: [http] }), slice({ service: 'big', namespace: 'ns', cluster: 'c1', headless: true, endpoints, ports: [http] })]);
  const server = await startLighthouse(dir.path);
  t.after(() => server.close());
  const name = `big.ns.svc.${Z}`;
  const small = await query({ port: server.port() }, name, 'A');
  assert.equal(small.flag_tc, true);
  const tcp = await query({ port: server.port() }, name, 'A', { transport: 'tcp' });
  assert.equal(tcp.flag_tc, false);
  assert.equal(tcp.answers?.length, 60);
  const edns = await query({ port: server.port() }, name, 'A', { udpSize: 4096, dnssecOk: true });
  assert.equal(edns.flag_tc, false);
  assert.equal(edns.answers?.length, 60);
  const opt = edns.additionals?.find((rr) => rr.type === 'OPT') as { udpPayloadSize: number; flag_do: boolean } | undefined;
  assert.equal(opt?.udpPayloadSize, 4096);
  assert.equal(opt?.flag_do, true);
});

test("Node's resolver reads A, SRV, TXT and PTR answers and sees NXDOMAIN as ENOTFOUND", async (t) => {
  const dir = await manifestDir();
  t.after(() => dir.close());
  await dir.write('objects.yaml', objects());
  const server = await startLighthouse(dir.path, { keys: [Z, '243.1.0.0/16'], args: `${Z} 243.1.0.0/16` });
  t.after(() => server.close());
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${server.port()}`]);
  assert.deepEqual(await resolver.resolve4(svc1), [SIP1]);
  assert.deepEqual((await resolver.resolve4(hl)).sort(), [EIP1, EIP2]);
  assert.deepEqual(await resolver.resolveSrv(`_http._tcp.cluster1.${hl}`), [{ name: `web-0.cluster1.${hl}`, port: 8080, priority: 0, weight: 50 }]);
  assert.deepEqual(await resolver.resolveTxt(`dns-version.${Z}`), [['1.0.0']]);
  assert.deepEqual(await resolver.reverse('243.1.0.1'), [`vip.namespace1.svc.${Z}`]);
  await assert.rejects(resolver.resolve4(`unknown.namespace1.svc.${Z}`), { code: 'ENOTFOUND' });
  await assert.rejects(resolver.resolve6(svc1), { code: 'ENODATA' });
});
