/**
 * The UDP burst next to knotd with one UDP worker, in the same run: foghorn must answer at least
 * 0.9 times what knotd answers. Before the receive buffer was raised foghorn answered about a
 * third of a 1,000-query burst.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freeTcpPort } from '@foghorn/testkit';
import { compareBurst } from '../burst.js';
import { examplePorts, exampleCorefile, scratch, startFoghorn, startKnot } from '../harness.js';

test('a burst of 1,000 UDP queries: foghorn answers at least 0.9x what knotd answers', async (t) => {
  const work = await scratch();
  t.after(() => work.close());
  const ports = await examplePorts();
  const foghorn = await startFoghorn(await exampleCorefile(ports, work.manifests), ports.dns, work.dir);
  t.after(() => foghorn.stop());
  const knot = await startKnot(await freeTcpPort(), work.dir);
  t.after(() => knot.stop());
  let f = 0;
  let k = 0;
  for (let round = 0; round < 3; round++) {
    const result = await compareBurst(foghorn.port, knot.port, 1000);
    f += result.foghorn.answered;
    k += result.knot.answered;
  }
  t.diagnostic(`foghorn answered ${f}/3000, knotd ${k}/3000`);
  assert.ok(f >= 0.9 * k, `foghorn ${f} < 0.9 x knotd ${k}`);
  assert.deepEqual(foghorn.errors, []);
});
