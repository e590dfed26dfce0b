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
