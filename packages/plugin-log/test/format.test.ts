import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '@foghorn/core';
import { makeQuery } from '@foghorn/testkit';
import { COMBINED_LOG_FORMAT } from '@foghorn/plugin-log';
import { compileFormat, expandMacros, flagsToString, formatLine, formatSeconds } from '../src/format.js';
import { LineBatcher } from '../src/sink.js';
import type { LineOutput } from '../src/sink.js';

/** A Request as the listener would build it, for formatting without sockets. */
function request(wire: Buffer, transport: 'udp' | 'tcp', address: string, port: number): Request {
  const req = Request.fromWire(wire, transport, address, port);
  req.server = 'dns://[::1]:1053';
  return req;
}

test('durations print as Go prints seconds: shortest float, never an exponent', () => {
  assert.equal(formatSeconds(120_082), '0.000120082s');
  assert.equal(formatSeconds(37_990_251), '0.037990251s');
  assert.equal(formatSeconds(500), '0.0000005s');
  assert.equal(formatSeconds(1), '0.000000001s');
  assert.equal(formatSeconds(0), '0s');
  assert.equal(formatSeconds(1_500_000_000), '1.5s');
  assert.equal(formatSeconds(62_000_000_001), '62.000000001s');
});

test('the sub-second fast path prints exactly the shortest form of the float Go computes', () => {
  for (let i = 0; i < 2000; i++) {
    const ns = Math.floor(Math.random() * 1e9);
    const text = formatSeconds(ns).slice(0, -1);
    assert.equal(Number(text), ns / 1e9, `${ns} ns printed as ${text}`);
    if (ns / 1e9 >= 1e-6) assert.equal(text, String(ns / 1e9));
  }
});

test('reply flags print in miekg/dns order and only when set', () => {
  assert.equal(flagsToString(0x8000 | 0x0400 | 0x0100 | 0x0080), 'qr,aa,rd,ra');
  assert.equal(flagsToString(0xffff), 'qr,aa,tc,rd,ra,z,ad,cd');
  assert.equal(flagsToString(0x0003), '');
});

test('a placeholder is the nearest { before each }, and unknown ones stay literal', () => {
  const req = request(makeQuery('Example.ORG.', 'A', { id: 7 }), 'udp', '::1', 53000);
  const reply = { rcode: 3, header: 0x8183, size: 99 };
  const line = (format: string): string => formatLine(compileFormat(format), req, reply, 1000);
  assert.equal(line('{ {type} }'), '{ A }');
  assert.equal(line('{rflags} {>rflags} {when} {>nope} {/forward/upstream} {}'), '{rflags} qr,rd,ra {when} {>nope} - {}');
  assert.equal(line('{remote}:{port} {local} {name} {class} {proto} {>id} {>opcode} {>do} {>bufsize}'), '[::1]:53000 [::1] example.org. IN udp 7 0 false 512');
  assert.equal(line('{rcode} {rsize} {duration} %s %d'), 'NXDOMAIN 99 0.000001s %s %d');
  assert.equal(line('unterminated {type'), 'unterminated {type');
});

test('{combined} expands to the common format plus the opcode, with no reply giving dashes', () => {
  const wire = makeQuery('example.org.', 'A', { id: 29008 });
  const req = request(wire, 'tcp', '10.0.0.1', 4444);
  assert.equal(
    formatLine(compileFormat(expandMacros('{combined}')), req, null, 37_990_251),
    `10.0.0.1:4444 - 29008 "A IN example.org. tcp ${wire.length} false 65535" - - 0 0.037990251s "0"`,
  );
  assert.equal(expandMacros('{combined}'), COMBINED_LOG_FORMAT);
});

test('unknown rcodes print as their number', () => {
  const req = request(makeQuery('example.org.', 'A'), 'udp', '10.0.0.1', 1);
  assert.equal(formatLine(compileFormat('{rcode}'), req, { rcode: 12, header: 0x800c, size: 12 }, 0), '12');
});

/** Writes one line through {@link LineOutput}, as the log handler does. */
function put(out: LineOutput, line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  const buf = out.reserve(bytes.length);
  bytes.copy(buf, out.used);
  out.commit(out.used + bytes.length);
}

/** A batcher over an output that records chunks as text and answers `accept()`. */
function batcherFor(chunks: string[], maxBytes?: number, accept: () => boolean = () => true): LineBatcher {
  return new LineBatcher({ write: (chunk) => (chunks.push(chunk.toString()), accept()), holds: () => false }, maxBytes);
}

test('the batcher writes nothing until the next turn, then every waiting line in one chunk', async () => {
  const chunks: string[] = [];
  const batcher = batcherFor(chunks);
  put(batcher, '[INFO] one');
  put(batcher, '[INFO] two');
  assert.deepEqual(chunks, []);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(chunks, ['[INFO] one\n[INFO] two\n']);
});

test('the batcher flushes early when its limit is reached and on demand', () => {
  const chunks: string[] = [];
  const batcher = batcherFor(chunks, 10);
  put(batcher, '0123456789');
  assert.deepEqual(chunks, ['0123456789\n']);
  put(batcher, 'x');
  batcher.flush();
  assert.deepEqual(chunks, ['0123456789\n', 'x\n']);
});

test('the batcher holds lines while the output asks to wait, and sends them on drain', async () => {
  const chunks: string[] = [];
  let accept = false;
  const batcher = batcherFor(chunks, undefined, () => accept);
  put(batcher, 'a');
  batcher.flush();
  put(batcher, 'b');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(chunks, ['a\n']);
  accept = true;
  batcher.drained();
  assert.deepEqual(chunks, ['a\n', 'b\n']);
});

test('a line longer than the batch buffer gets a bigger one, and lines written while waiting for drain are kept', () => {
  const chunks: string[] = [];
  let accept = true;
  const batcher = batcherFor(chunks, 16, () => accept);
  const long = 'ä'.repeat(5000);
  put(batcher, 'short');
  put(batcher, long);
  assert.deepEqual(chunks, ['short\n', `${long}\n`]);
  accept = false;
  put(batcher, 'x');
  for (let i = 0; i < 3000; i++) put(batcher, `line ${i}`);
  // The first chunk past the limit was refused; everything after it waits for drain, in one chunk.
  const refused = chunks.length;
  accept = true;
  batcher.drained();
  assert.equal(chunks.length, refused + 1);
  assert.deepEqual(chunks.slice(2).join('').split('\n'), ['x', ...Array.from({ length: 3000 }, (_, i) => `line ${i}`), '']);
});

test('a batch the output still holds is not written over', () => {
  const held: Buffer[] = [];
  const batcher = new LineBatcher({ write: (chunk) => (held.push(chunk), true), holds: () => true });
  put(batcher, 'first');
  batcher.flush();
  put(batcher, 'second');
  batcher.flush();
  assert.deepEqual(held.map(String), ['first\n', 'second\n']);
});

test('lines are written as bytes: UTF-8 literals intact, and every width of number and duration as text would give', () => {
  const req = request(makeQuery('example.org.', 'A', { id: 0 }), 'udp', '10.0.0.1', 9);
  const reply = { rcode: 0, header: 0x8180, size: 100_000 };
  assert.equal(formatLine(compileFormat('ñ {>id} {port} {rsize} ✓ {name} 😀'), req, reply, 0), 'ñ 0 9 100000 ✓ example.org. 😀');
  // A placeholder's text is ASCII by construction; were it not, the line would still be UTF-8.
  req.server = 'dns://dnsé.example:53';
  assert.equal(formatLine(compileFormat('{local} {type}'), req, reply, 0), 'dnsé.example A');
  for (const ns of [1, 9, 10, 100, 120_000, 999_999_999, 500_000_000, 1_000_000_000, 3_600_000_000_123]) {
    assert.equal(formatLine(compileFormat('{duration}'), req, reply, ns), formatSeconds(ns));
  }
  for (const size of [0, 1, 9, 10, 99, 100, 65535, 4_294_967_295, 4_294_967_296, 2 ** 53]) {
    assert.equal(formatLine(compileFormat('{rsize}'), req, { ...reply, size }, 0), String(size));
  }
});

test('any literal text stays text in the generated writer, long or short, framed or not', () => {
  const req = request(makeQuery('example.org.', 'A', { id: 5 }), 'udp', '10.0.0.1', 9);
  const code = "`); process.exit(1); ${pos} \\ ' \" \n\u2028";
  const long = `${'x'.repeat(40)}${code}`;
  assert.equal(formatLine(compileFormat(`${code}{>id}${long}{>id}`), req, null, 0), `${code}5${long}5`);
  const framed = compileFormat('{>id} {rcode}', { prefix: '[INFO] ', suffix: '\n' });
  assert.equal(formatLine(framed, req, null, 0), '[INFO] 5 -\n');
  assert.ok(framed.maxBytes >= '[INFO] 65535 NXDOMAIN\n'.length);
});

test('where code generation is turned off, a format writes the same lines', () => {
  const query = makeQuery('Example.ORG.', 'AAAA', { id: 4242, udpSize: 1232 });
  const reply = { rcode: 3, header: 0x8583, size: 77 };
  const format = `${expandMacros('{combined}')} {local} {/label} ${'long literal '.repeat(4)}`;
  const here = (file: string): string => new URL(file, import.meta.url).href;
  const script = [
    `const { compileFormat, formatLine } = await import(${JSON.stringify(here('../src/format.js'))});`,
    `const { Request } = await import(${JSON.stringify(import.meta.resolve('@foghorn/core'))});`,
    `const req = Request.fromWire(Buffer.from(${JSON.stringify(query.toString('base64'))}, 'base64'), 'tcp', '::1', 53000);`,
    "req.server = 'dns://[::1]:1053';",
    `process.stdout.write(formatLine(compileFormat(${JSON.stringify(format)}, { prefix: '[INFO] ', suffix: '!' }), req, ${JSON.stringify(reply)}, 1234));`,
  ].join('\n');
  const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.stderr, '');
  const req = request(query, 'tcp', '::1', 53000);
  assert.equal(child.stdout, formatLine(compileFormat(format, { prefix: '[INFO] ', suffix: '!' }), req, reply, 1234));
  assert.match(child.stdout, /^\[INFO\] \[::1\]:53000 - 4242 "AAAA IN example\.org\. tcp \d+ false 65535" NXDOMAIN qr,aa,rd,ra 77 0\.000001234s "0" \[::1\] - (long literal ){4}!$/);
});

test('a batch buffer grown while the output made us wait is not kept once it drained', () => {
  const chunks: string[] = [];
  let accept = false;
  const batcher = batcherFor(chunks, 16, () => accept);
  put(batcher, 'first');
  batcher.flush();
  for (let i = 0; i < 2000; i++) put(batcher, `waiting line ${i}`);
  accept = true;
  batcher.drained();
  const grown = (batcher as unknown as { buf: Buffer }).buf.length;
  put(batcher, 'after');
  batcher.flush();
  assert.ok(grown < 4096, `buffer of ${grown} bytes kept`);
  assert.equal(chunks.at(-1), 'after\n');
});
