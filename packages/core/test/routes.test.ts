import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteTable } from '../src/routes.js';
import type { Handler } from '../src/plugin.js';

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
