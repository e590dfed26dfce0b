import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WaiterTable } from '../src/waiters.js';

/** Checks every ID of 0..65535 against the model: the table finds exactly the model's entries. */
function sameAs(table: WaiterTable<string>, model: Map<number, string>): void {
  assert.equal(table.size, model.size);
  for (let id = 0; id < 65536; id++) assert.equal(table.get(id), model.get(id), `id ${id}`);
  assert.deepEqual(new Map(table.entries()), model);
}

test('a waiter table agrees with a Map under random sets and deletes, IDs colliding and wrapping', () => {
  // Capacity 8: 16 slots, so IDs that share their low four bits collide, and runs wrap past the
  // last slot. Seeded, so a failure is reproducible.
  const table = new WaiterTable<string>(8);
  const model = new Map<number, string>();
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  // Few distinct low bits (14, 15, 0, 1) in many IDs: long probe runs across the table's end.
  const ids = Array.from({ length: 24 }, (_, i) => ((i * 0x1000) & 0xfff0) | [14, 15, 0, 1][i % 4]!);
  for (let step = 0; step < 4000; step++) {
    const id = ids[random(ids.length)]!;
    if (model.has(id)) {
      assert.equal(table.delete(id), true);
      model.delete(id);
    } else if (model.size < 8) {
      table.set(id, `v${step}`);
      model.set(id, `v${step}`);
    } else {
      assert.equal(table.delete(id), false, 'an ID not in the table');
    }
    assert.equal(table.has(id), model.has(id));
    if (step % 200 === 0) sameAs(table, model);
  }
  sameAs(table, model);
});

test('a waiter table refuses more than its capacity, and clear empties it', () => {
  const table = new WaiterTable<number>(3);
  for (const id of [7, 7 + 8, 7 + 16]) table.set(id, id);
  assert.throws(() => table.set(1, 1), /waiter table full \(3\)/);
  assert.equal(table.get(7 + 16), 7 + 16);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.get(7), undefined);
  table.set(65535, 1);
  assert.deepEqual(table.entries(), [[65535, 1]]);
});
