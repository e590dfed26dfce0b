/**
 * A short soak (the long one is `npm run soak`): Corefile.example under steady load while its
 * manifests churn, the Corefile reloads every 1.5 s and a hostile TCP client opens idle
 * connections, slowloris, random frames, long prefixes and pipelines. No query may be lost,
 * nothing logged as an error, and the server must stay up and serve fresh TCP clients.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSample, formatSoak, soak } from '../soak.js';

test('soak: steady load, churning manifests, reloads and a hostile TCP client lose no query', async (t) => {
  const report = await soak({ seconds: 6, qps: 200, sampleEvery: 2, reloadEvery: 1.5, churnEvery: 0.5, hostileConnections: 1000 });
  for (const sample of report.samples) t.diagnostic(formatSample(sample));
  for (const line of formatSoak(report).split('\n')) t.diagnostic(line);
  assert.equal(report.crashed, false);
  assert.deepEqual(report.errors, []);
  assert.ok(report.reloads >= 2, `${report.reloads} reloads`);
  const last = report.samples.at(-1)!;
  assert.ok(last.sent > 500, `${last.sent} queries sent`);
  assert.equal(last.lost, 0, 'queries lost');
  assert.equal(report.freshServed, report.freshTried, 'fresh TCP clients served during the hostile rounds');
});
