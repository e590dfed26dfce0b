/**
 * Bad zone files at reload, over real sockets: a file edited while it is read, one that stops
 * parsing, disappears, goes back in serial or loops through `$INCLUDE`. Nothing crashes, the last
 * good zone keeps answering, each problem is logged once.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { directivesOf, eventually, query, rcodeOf, startServer } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import file from '@foghorn/plugin-file';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-file-bad-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const head = (serial: number): string => `$ORIGIN example.org.\n$TTL 60\n@ SOA ns1 hostmaster ${serial} 7200 3600 1209600 60\n@ NS ns1\nns1 A 192.0.2.53\n`;
const serialOf = (reply: Reply): number | undefined => {
  const soa = [...(reply.answers ?? []), ...(reply.authorities ?? [])].find((rr) => rr.type === 'SOA');
  return soa?.type === 'SOA' ? soa.data.serial : undefined;
};

async function serve(t: { after(fn: () => Promise<void>): void }, name: string, text: string): Promise<{ path: string; port: number; lines: string[] }> {
  const path = join(dir, name);
  writeFileSync(path, text);
  const server = await startServer(`example.org:0 {\n file ${path} {\n  reload 0.02s\n }\n}\n`, { directives: directivesOf(file) });
  t.after(() => server.close());
  return { path, port: server.port(), lines: server.lines };
}

test('a zone file written in many pieces is never served half-written', async (t) => {
  const { path, port, lines } = await serve(t, 'db.edited', `${head(1)}www A 192.0.2.1\n`);
  // The "editor" rewrites the file in place: the new SOA first, then 20,000 records in 10 bursts
  // 30 ms apart (each file between them parses: only its age shows it is not finished), the
  // record the test looks for last.
  writeFileSync(path, head(2));
  let done = false;
  const editor = (async (): Promise<void> => {
    for (let burst = 0; burst < 10; burst++) {
      let text = '';
      for (let i = 0; i < 2000; i++) text += `h${burst * 2000 + i} A 10.${burst}.${i >> 8}.${i & 255}\n`;
      appendFileSync(path, text);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    appendFileSync(path, 'last A 192.0.2.99\n');
    done = true;
  })();
  // Until the file holds still, every answer comes from serial 1; serial 2 only ever whole.
  let sawOld = 0;
  for (;;) {
    const reply = await query({ port }, 'last.example.org', 'A');
    const serial = serialOf(reply);
    if (rcodeOf(reply) === 'NXDOMAIN') {
      assert.equal(serial, 1, 'NXDOMAIN for the last record from a half-read serial 2');
      sawOld++;
    } else {
      assert.equal(rcodeOf(reply), 'NOERROR');
      assert.equal(reply.answers?.length, 1);
      break;
    }
    assert.ok(!done || sawOld < 10_000);
  }
  await editor;
  assert.ok(sawOld > 0, 'the old zone was never seen while the file was written');
  assert.equal(rcodeOf(await query({ port }, 'h19999.example.org', 'A')), 'NOERROR');
  assert.ok(!lines.some((line) => line.includes('Parsing zone')), lines.join('\n'));
});

test('a file that stops parsing, then disappears, keeps the last good zone; each problem is logged once', async (t) => {
  const { path, port, lines } = await serve(t, 'db.broken', `${head(1)}www A 192.0.2.1\n`);
  writeFileSync(path, `${head(2)}www A 192.0.2.300\n`);
  await eventually(() => lines.some((line) => line.includes('Parsing zone "example.org."')), 3000);
  assert.equal(serialOf(await query({ port }, 'www.example.org', 'SOA')), 1);
  unlinkSync(path);
  await eventually(() => lines.some((line) => line.includes('Failed to open zone "example.org."')), 3000);
  // Many reload ticks later: one line per problem, and the zone still answers.
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(lines.filter((line) => line.includes('Parsing zone')).length, 1, lines.join('\n'));
  assert.equal(lines.filter((line) => line.includes('Failed to open zone')).length, 1, lines.join('\n'));
  assert.deepEqual((await query({ port }, 'www.example.org', 'A')).answers?.map((rr) => rr.type === 'A' && rr.data), ['192.0.2.1']);
  // Fixed: served, and a later break is logged again.
  writeFileSync(path, `${head(3)}www A 192.0.2.3\n`);
  await eventually(async () => assert.equal(serialOf(await query({ port }, 'example.org', 'SOA')), 3), 3000);
  writeFileSync(path, `${head(4)}www A 192.0.2.400\n`);
  await eventually(() => lines.filter((line) => line.includes('Parsing zone')).length === 2, 3000);
});

test('a serial that went backwards is served, with one warning that secondaries will not follow', async (t) => {
  const { path, port, lines } = await serve(t, 'db.backwards', `${head(10)}www A 192.0.2.10\n`);
  writeFileSync(path, `${head(9)}www A 192.0.2.9\n`);
  await eventually(async () => assert.equal(serialOf(await query({ port }, 'example.org', 'SOA')), 9), 3000);
  assert.ok(lines.includes('[WARNING] plugin/file: Zone "example.org." went back from SOA serial 10 to 9: secondaries keep serial 10 until it passes it'), lines.join('\n'));
});

test('an $INCLUDE loop written into a served zone is refused at reload, the zone kept', async (t) => {
  const { path, port, lines } = await serve(t, 'db.loop', `${head(1)}www A 192.0.2.1\n`);
  writeFileSync(join(dir, 'loop.inc'), '$INCLUDE db.loop\n');
  writeFileSync(path, `${head(2)}$INCLUDE loop.inc\n`);
  await eventually(() => lines.some((line) => line.includes('$INCLUDE loop')), 3000);
  assert.ok(lines.includes(`[ERROR] plugin/file: Parsing zone "example.org.": ${join(dir, 'loop.inc')}:1: $INCLUDE loop: \`db.loop' is already being read`), lines.join('\n'));
  assert.equal(serialOf(await query({ port }, 'example.org', 'SOA')), 1);
});
