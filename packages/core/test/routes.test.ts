import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteTable } from '../src/routes.js';
import type { Handler } from '../src/plugin.js';
import type { MetadataCollector } from '../src/capability.js';
import { Request } from '../src/request.js';
import dnsPacket from 'dns-packet';
import type { RecordType } from 'dns-packet';

const makeQuery = (name: string, type: RecordType): Buffer => dnsPacket.encode({ type: 'query', id: 1, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] });

const handler = (name: string): Handler => ({ name, serveDNS: () => 0 });

test('routing picks the longest zone, DS the most general one, and the root last', () => {
  const table = new RouteTable([
    { zone: 'example.org.', chain: handler('parent') },
    { zone: 'sub.example.org.', chain: handler('child') },
    { zone: '.', chain: handler('root') },
  ]);
  assert.equal(table.match('a.sub.example.org.', 1)?.chain?.name, 'child');
  assert.equal(table.match('sub.example.org.', 1)?.chain?.name, 'child');
  assert.equal(table.match('b.example.org.', 1)?.chain?.name, 'parent');
  assert.equal(table.match('sub.example.org.', 43)?.chain?.name, 'parent', 'DS is answered by the parent zone');
  assert.equal(table.match('example.net.', 1)?.chain?.name, 'root');
  assert.equal(table.match('.', 2)?.chain?.name, 'root');
  assert.equal(new RouteTable([{ zone: 'example.org.', chain: null }]).match('example.net.', 1), undefined);
  assert.deepEqual(table.zones, ['.', 'example.org.', 'sub.example.org.']);
});

test('a table of many zones routes as a table of few: most specific, DS to the most general, label boundaries', () => {
  const zones = ['example.org.', 'sub.example.org.', 'a.sub.example.org.', 'ample.org.', 'org.', '10.in-addr.arpa.', '0.10.in-addr.arpa.', 'x.', 'y.'];
  const names = ['a.sub.example.org.', 'b.a.sub.example.org.', 'sub.example.org.', 'xsub.example.org.', 'ample.org.', 'example.org.', 'org.', 'net.', '1.0.10.in-addr.arpa.', '9.10.in-addr.arpa.', 'ax.', 'x.', '.'];
  const route = (zone: string) => ({ zone, chain: handler(zone) });
  for (const withRoot of [false, true]) {
    const all = [...zones.map(route), ...(withRoot ? [route('.')] : [])];
    // Nine zones walk the name's suffixes; the first five are compared one by one.
    const many = new RouteTable(all);
    const few = (name: string) => new RouteTable(all.filter((r) => r.zone === '.' || name === r.zone || name.endsWith(`.${r.zone}`)));
    for (const name of names) {
      for (const qtype of [1, 43]) {
        assert.equal(few(name).match(name, qtype)?.zone, many.match(name, qtype)?.zone, `${name} type ${qtype}`);
      }
    }
    assert.equal(many.match('xsub.example.org.', 1)?.zone, 'example.org.', 'zones end at a label boundary');
    assert.equal(many.match('sub.example.org.', 43)?.zone, 'org.');
  }
});

test('views choose among the blocks of a zone in order; none passing goes on to the less specific zones', () => {
  const view = (name: string, qtype: number) => ({ name, filter: (req: Request) => req.qtype === qtype });
  const routes = (extra: number) => [
    ...Array.from({ length: extra }, (_, i) => ({ zone: `filler${i}.`, chain: handler(`filler${i}`) })),
    { zone: 'example.org.', chain: handler('a-view'), view: view('a', 1) },
    { zone: 'example.org.', chain: handler('aaaa-view'), view: view('aaaa', 28) },
    { zone: 'sub.example.org.', chain: handler('sub-mx'), view: view('mx', 15) },
    { zone: '.', chain: handler('root-txt'), view: view('txt', 16) },
    { zone: '.', chain: handler('root') },
  ];
  // Few zones are compared one by one, many are looked up by suffix: both choose alike.
  for (const table of [new RouteTable(routes(0)), new RouteTable(routes(10))]) {
    const chosen = (name: string, type: RecordType): string | undefined => {
      const req = Request.fromWire(makeQuery(name, type), 'udp', '127.0.0.1', 5300);
      const route = table.match(req.qname, req.qtype, req);
      assert.equal(req.zone, route?.zone ?? '.', 'the query gets the zone of the block that serves it');
      return route?.chain?.name;
    };
    assert.equal(chosen('a.example.org.', 'A'), 'a-view');
    assert.equal(chosen('a.example.org.', 'AAAA'), 'aaaa-view');
    assert.equal(chosen('a.sub.example.org.', 'MX'), 'sub-mx');
    assert.equal(chosen('a.sub.example.org.', 'A'), 'a-view', 'no view of sub.example.org passes: example.org serves it');
    assert.equal(chosen('a.sub.example.org.', 'TXT'), 'root-txt');
    assert.equal(chosen('a.example.net.', 'SRV'), 'root');
    // Without the query the first block of each zone is taken (listing, tracing).
    assert.equal(table.match('a.example.org.', 28)?.chain?.name, 'a-view');
  }
});

test('a block collects the metadata of each query it is asked about, before its view; a block without a collector clears it', () => {
  const seen: string[] = [];
  const collector = (name: string): MetadataCollector => ({
    collect: (req) => {
      seen.push(name);
      return { get: (label) => (label === 'test/block' ? name : undefined), set: () => {} };
    },
  });
  const table = new RouteTable([
    { zone: 'example.org.', chain: handler('first'), metadata: collector('first'), view: { name: 'never', filter: (req) => req.metadata?.get('test/block') === 'second' } },
    { zone: 'example.org.', chain: handler('second'), metadata: collector('second'), view: { name: 'its-own', filter: (req) => req.metadata?.get('test/block') === 'second' } },
    { zone: 'example.net.', chain: handler('plain'), view: { name: 'any', filter: () => true } },
  ]);
  const req = Request.fromWire(makeQuery('example.org.', 'A'), 'udp', '127.0.0.1', 5300);
  assert.equal(table.match(req.qname, req.qtype, req)?.chain?.name, 'second');
  assert.deepEqual(seen, ['first', 'second']);
  assert.equal(req.metadata?.get('test/block'), 'second');
  const other = Request.fromWire(makeQuery('example.net.', 'A'), 'udp', '127.0.0.1', 5300);
  other.metadata = req.metadata;
  assert.equal(table.match(other.qname, other.qtype, other)?.chain?.name, 'plain');
  assert.equal(other.metadata, undefined);
});

test('a block without handlers refuses at once, even when a later block of its zone would serve', () => {
  const table = new RouteTable([
    { zone: 'example.org.', chain: null },
    { zone: 'example.org.', chain: handler('view'), view: { name: 'v', filter: () => true } },
  ]);
  const req = Request.fromWire(makeQuery('example.org.', 'A'), 'udp', '127.0.0.1', 5300);
  assert.equal(table.match(req.qname, req.qtype, req)?.chain, null);
});
