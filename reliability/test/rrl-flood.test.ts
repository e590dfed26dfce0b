/**
 * The reflection attack of `npm run rrl-flood`, short: one second at 1,500 queries per second
 * from the victim's /24, against the CLI without and with rrl (a rate a loaded CI machine keeps
 * up with, and replies counted for 1.5 s after: the figures are about rrl, not about a starved CPU). Without it the victim receives
 * many times the bytes the attacker sent; with it (10 a second, slip-ratio 2) less than the
 * attacker sent, and a client on another network keeps its answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counter, flood, rrlBlock, startFloodServer } from '../rrl-flood.js';
import { scratch } from '../harness.js';

const attack = { seconds: 1, qps: 1500, legitQps: 100, tailMs: 1500 };

test('a reflection flood: rrl takes the amplification from above 10 to below 1, and the client on another network keeps 99 % of its answers', async (t) => {
  const work = await scratch();
  t.after(() => work.close());

  // Both start at once (a CLI start is most of this test's time); the floods run one after the other.
  const [plain, limited] = await Promise.all([startFloodServer(work.dir, null), startFloodServer(work.dir, rrlBlock)]);
  t.after(() => limited.stop());
  const without = await flood(plain.port, plain.pid, attack).finally(() => plain.stop());
  t.diagnostic(`without rrl: ${without.replyBytes} reply bytes for ${without.queryBytes} query bytes, amplification ${without.amplification.toFixed(2)}`);
  assert.ok(without.amplification > 10, `amplification without rrl ${without.amplification}`);

  const withRrl = await flood(limited.port, limited.pid, attack);
  const slipped = await counter(limited.metricsPort, 'coredns_rrl_responses_slipped_total');
  const dropped = await counter(limited.metricsPort, 'coredns_rrl_responses_dropped_total');
  t.diagnostic(
    `with rrl: ${withRrl.replyBytes} reply bytes (${withRrl.truncated} truncated) for ${withRrl.queryBytes} query bytes, amplification ${withRrl.amplification.toFixed(2)}; ` +
      `legitimate ${withRrl.legitAnswered}/${withRrl.legitSent}; dropped ${dropped}, slipped ${slipped}`,
  );
  assert.ok(withRrl.amplification < 1, `amplification with rrl ${withRrl.amplification}`);
  assert.ok(withRrl.legitAnswered >= 0.99 * withRrl.legitSent, `legitimate client: ${withRrl.legitAnswered}/${withRrl.legitSent}`);
  // slip-ratio 2: about half of what was over the limit went out truncated, and the victim got it.
  assert.ok(Math.abs(slipped - dropped) <= 1, `slipped ${slipped}, dropped ${dropped}`);
  assert.equal(withRrl.truncated, slipped);
});
