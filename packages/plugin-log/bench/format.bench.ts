/**
 * Per-query cost of the log plugin. Run after building:
 *   node packages/plugin-log/dist/bench/format.bench.js
 * Each figure is the best of five rounds of 100,000 calls.
 * 1. formatLine alone with the default format (the line as text, as a custom sink gets it);
 * 2. a whole Log.serveDNS around a terminal handler that writes a small reply, against the
 *    terminal handler alone, with lines going to a LineBatcher that writes to /dev/null.
 */
import { openSync, writeSync, closeSync } from 'node:fs';
import { Flags, replyTo, Request } from '@foghorn/core';
import type { Handler, ResponseWriter } from '@foghorn/core';
import { emptyHeader, readQuery } from '@foghorn/core/wire';
import { makeQuery } from '@foghorn/testkit';
import { DEFAULT_LOG_FORMAT } from '@foghorn/plugin-log';
import { compileFormat, formatLine } from '../src/format.js';
import { Log } from '../src/handler.js';
import { compileRules } from '../src/setup.js';
import { LineBatcher } from '../src/sink.js';
import type { Packet } from 'dns-packet';

const N = 100_000;

const raw = makeQuery('www.example.org.', 'A', { id: 29008, udpSize: 4096 });
const header = emptyHeader();
readQuery(raw, header);

/**
 * A new Request per query, as the listener makes one: a reused one would keep the timing start
 * of its first query (Request.startTime) and spare later ones a clock read.
 */
function request(): Request {
  return new Request(raw, header, 'udp', '10.1.2.3', 50759);
}

/** Best of five rounds of N calls: the machine is shared, and the minimum is the least noisy. */
function time(label: string, fn: (i: number) => void): number {
  for (let i = 0; i < 10_000; i++) fn(i); // warm up
  let ns = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) fn(i);
    ns = Math.min(ns, Number(process.hrtime.bigint() - start) / N);
  }
  console.log(`${label.padEnd(46)} ${ns.toFixed(0).padStart(6)} ns/query  ${Math.round(1e9 / ns).toLocaleString('en-US').padStart(11)} /s`);
  return ns;
}

const req = request();
const format = compileFormat(DEFAULT_LOG_FORMAT);
const reply = { rcode: 0, header: 0x8180, size: 68 };
let sinkLength = 0;
time('formatLine, default format', (i) => {
  sinkLength += formatLine(format, req, reply, 37_990_251 + i).length;
});

/** Stands in for the listener's writer: counts, sends nothing. */
const nullWriter: ResponseWriter = {
  write: () => 0,
  writeWire: (wire) => wire.length,
};
const answer: Handler = {
  name: 'answer',
  serveDNS(r, w) {
    const msg: Packet = replyTo(r);
    msg.flags = (msg.flags ?? 0) | Flags.RA;
    msg.answers = [{ type: 'A', name: r.qname, ttl: 30, data: '192.0.2.1' }];
    w.write(msg);
    return 0;
  },
};

const devNull = openSync('/dev/null', 'w');
const batcher = new LineBatcher({ write: (chunk) => (writeSync(devNull, chunk), true), holds: () => false });
const base = time('terminal handler alone', () => answer.serveDNS(request(), nullWriter));
const all = new Log(compileRules([{ name: '.', format: DEFAULT_LOG_FORMAT, classes: ['all'] }]), answer, batcher);
const logged = time('log (default format, class all) + handler', () => {
  all.serveDNS(request(), nullWriter);
});
const denial = new Log(compileRules([{ name: '.', format: DEFAULT_LOG_FORMAT, classes: ['denial'] }]), answer, batcher);
const filtered = time('log (class denial: classified, not printed)', () => denial.serveDNS(request(), nullWriter));
const other = new Log(compileRules([{ name: 'example.net.', format: DEFAULT_LOG_FORMAT, classes: ['all'] }]), answer, batcher);
const unmatched = time('log (no rule matches the name)', () => other.serveDNS(request(), nullWriter));
batcher.flush();
closeSync(devNull);
console.log(`\nlog overhead per logged query: ${(logged - base).toFixed(0)} ns; filtered out: ${(filtered - base).toFixed(0)} ns; unmatched: ${(unmatched - base).toFixed(0)} ns`);
if (sinkLength === 0) console.log('');
