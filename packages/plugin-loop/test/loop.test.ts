/**
 * CoreDNS plugin/loop/loop_test.go over real sockets: a Loop built by hand in front of whoami
 * (no probe runs, so the counter moves only by the queries sent here), then the real plugin
 * detecting a real loop through forward, and not detecting one where there is none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directivesOf, eventually, freeDnsPort, query, rcodeOf, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import loop, { Loop, probeName } from '@foghorn/plugin-loop';

/** A server whose chain is `loop` (the given detector) then whoami. */
async function serveLoop(t: { after(fn: () => Promise<void>): void }, detector: Loop, key = '.'): Promise<TestServer> {
  const plugin = testPlugin('loop', (next) => {
    detector.next = next;
    return detector;
  });
  const server = await startServer(`${key}:0 {\n bind 127.0.0.1\n loop\n whoami\n}\n`, { directives: directivesOf(bind, plugin, whoami) });
  t.after(() => server.close());
  return server;
}

test('the probe name counts; other HINFO names and other types pass through uncounted', async (t) => {
  const fatals: string[] = [];
  const detector = new Loop('.', '1.2.example.org.', (message) => fatals.push(message));
  detector.address = '127.0.0.1:53';
  const server = await serveLoop(t, detector);
  const target = { port: server.port() };
  // TestLoop_NonHINFO: a non-HINFO query is answered by next.
  assert.equal(rcodeOf(await query(target, '1.2.example.org', 'A')), 'NOERROR');
  assert.equal(detector.count, 0);
  // TestLoop_MatchAndInc, in the case the client wrote it.
  const reply = await query(target, '1.2.Example.ORG', 'HINFO', { transport: 'tcp' });
  assert.equal(rcodeOf(reply), 'NOERROR');
  assert.equal(detector.count, 1);
  await query(target, '3.2.example.org', 'HINFO');
  assert.equal(detector.count, 1);
  await query(target, '1.2.example.org', 'HINFO');
  assert.deepEqual(fatals, []);
  // The third sighting is a loop.
  await query(target, '1.2.example.org', 'HINFO');
  assert.equal(fatals.length, 1);
  assert.match(
    fatals[0]!,
    /^Loop \(127\.0\.0\.1:\d+ -> 127\.0\.0\.1:53\) detected for zone "\.", see https:\/\/coredns\.io\/plugins\/loop#troubleshooting\. Query: "HINFO 1\.2\.example\.org\."$/,
  );
  // Reported once; the host decides whether the process ends.
  await query(target, '1.2.example.org', 'HINFO');
  assert.equal(fatals.length, 1);
});

test('queries outside the probe zone and queries after the probe ended are not counted', async (t) => {
  const fatals: string[] = [];
  // TestLoop_ZoneMismatch.
  const other = new Loop('example.org.', '1.2.example.org.', (message) => fatals.push(message));
  const server = await serveLoop(t, other, 'example.org');
  for (let i = 0; i < 4; i++) await query({ port: server.port() }, 'a.example.com', 'HINFO');
  assert.equal(other.count, 0);
  // TestLoop_Disabled.
  const off = new Loop('.', '1.2.example.org.', (message) => fatals.push(message));
  off.disable();
  const second = await serveLoop(t, off);
  for (let i = 0; i < 4; i++) assert.equal(rcodeOf(await query({ port: second.port() }, '1.2.example.org', 'HINFO')), 'NOERROR');
  assert.equal(off.count, 0);
  assert.deepEqual(fatals, []);
});

test('a server forwarding to itself is a loop: the fatal line names client, target, zone and probe', async (t) => {
  const port = await freeDnsPort();
  const server = await startServer(`.:${port} {\n bind 127.0.0.1\n loop\n forward . 127.0.0.1:${port}\n}\n`, { directives: directivesOf(bind, loop, forward) });
  t.after(() => server.close());
  await eventually(() => server.fatals.length > 0, 10_000);
  const line = server.lines.find((l) => l.startsWith('[FATAL]'));
  assert.match(
    line ?? '',
    new RegExp(
      `^\\[FATAL\\] plugin/loop: Loop \\(127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:${port}\\) detected for zone "\\.", see https://coredns\\.io/plugins/loop#troubleshooting\\. Query: "HINFO \\d+\\.\\d+\\.\\"$`,
    ),
  );
  assert.equal(server.fatals.length, 1);
});

test('a server that does not loop: the probe is answered once and the detector switches off', async (t) => {
  // The upstream answers the probe; seeing it there means the probe's exchange completed.
  const upstream = await upstreamFor(t);
  const probes = (): number => upstream.queries.filter((q) => q.type === 'HINFO').length;
  const port = await freeDnsPort();
  const server = await startServer(`example.org:${port} {\n bind 127.0.0.1\n loop\n forward . ${upstream.address}\n}\n`, {
    directives: directivesOf(bind, loop, forward),
  });
  t.after(() => server.close());
  await eventually(() => probes() === 1, 10_000);
  // The probe's name is under the block's zone, example.org.
  assert.equal(rcodeOf(await query({ port }, 'www.example.org', 'A')), 'NOERROR');
  assert.deepEqual(server.fatals, []);
  assert.equal(probes(), 1, 'one probe, answered, and no second one');
});

test('under -workers every worker probes with the name the group id gives: any worker may receive the probe', () => {
  const name = probeName('example.org.', 'a1b2');
  assert.equal(probeName('example.org.', 'a1b2'), name, 'the same in every worker of the group');
  assert.match(name, /^\d+\.\d+\.example\.org\.$/);
  assert.notEqual(probeName('example.net.', 'a1b2'), name.replace('example.org.', 'example.net.'), 'another zone, other labels');
  assert.notEqual(probeName('example.org.', 'c3d4'), name, 'another group, another name');
  assert.notEqual(probeName('example.org.'), probeName('example.org.'), 'a single process draws its name at random');
});
