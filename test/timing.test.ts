/**
 * log's `{duration}` and prometheus' `coredns_dns_request_duration_seconds` time a query from one
 * clock (Request.startTime and elapsedMs): from the outer timing plugin's start to the moment the
 * listener sends the reply. Checked through real sockets for a reply written in the chain's own
 * turn (whoami) and one written later (forward, to an upstream that waits before answering).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { standardDirectives } from 'foghorn';
import { createLogPlugin } from '@foghorn/plugin-log';
import { answering, eventually, histogramSum, makeQuery, startServer, udpExchange, upstreamFor } from '@foghorn/testkit';

/** The upstream's wait before each answer: the forward block's durations are about this long. */
const UPSTREAM_DELAY_MS = 40;

test('log and prometheus time each query alike, up to the reply being sent', async (t) => {
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry));
  const upstream = await upstreamFor(t, async (query) => {
    await sleep(UPSTREAM_DELAY_MS);
    return answering(query);
  });
  const block = (zone: string, answerer: string): string => `${zone}:0 {
  bind 127.0.0.1
  prometheus 127.0.0.1:0
  log . "{name} {duration}"
  ${answerer}
}
`;
  const server = await startServer(block('whoami.example', 'whoami') + block('forwarded.example', `forward . ${upstream.address}`), { directives });
  t.after(() => server.close());

  for (const [zone, atLeastMs] of [
    ['whoami.example.', 0],
    // A timer fires on the loop's millisecond clock, up to a millisecond early against
    // performance.now(): the forwarded durations are held to a little less than the wait.
    ['forwarded.example.', UPSTREAM_DELAY_MS - 5],
  ] as const) {
    let loggedSeconds = 0;
    for (let i = 0; i < 3; i++) {
      const before = logged.length;
      const reply = await udpExchange({ port: server.port(zone) }, makeQuery(`q${i}.${zone}`, 'A'));
      assert.ok(reply, `q${i}.${zone} answered`);
      await eventually(() => logged.length > before, 3000, `the log line for q${i}.${zone}`);
      const match = /^\[INFO\] (\S+) (\d+(?:\.\d+)?)s$/.exec(logged[before]!);
      assert.ok(match, `log line ${logged[before]}`);
      const seconds = Number(match[2]);
      assert.ok(seconds > 0 && seconds >= atLeastMs / 1000, `${zone}: ${seconds} s logged, at least ${atLeastMs} ms expected`);
      loggedSeconds += seconds;
    }
    // The log prints whole nanoseconds; the histogram sums the same three durations unrounded.
    const summed = await histogramSum(server, 'coredns_dns_request_duration_seconds', { zone });
    assert.ok(Math.abs(summed - loggedSeconds) <= 3e-9, `${zone}: the histogram's ${summed} s against the log's ${loggedSeconds} s`);
  }
});
