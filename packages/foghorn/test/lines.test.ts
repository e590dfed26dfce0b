/** lines.ts: several writers' chunks become whole lines on one output, and a full output pauses them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { LineJoiner, SharedOutput } from '../src/lines.js';

/** An output that records each write, and says it is full after `room` writes until drained. */
function recorder(room = Infinity): { out: Writable; writes: string[]; drain(): void } {
  const writes: string[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  const write = out.write.bind(out);
  out.write = ((chunk: Buffer) => {
    write(chunk);
    return writes.length < room;
  }) as typeof out.write;
  return { out, writes, drain: () => out.emit('drain') };
}

/** Two writers joined onto one shared output over `recorder(room)`. */
function twoWriters(room = Infinity): { output: SharedOutput; a: PassThrough; b: PassThrough; writes: string[]; drain(): void } {
  const { out, writes, drain } = recorder(room);
  const output = new SharedOutput(out);
  const a = new PassThrough();
  const b = new PassThrough();
  new LineJoiner(a, output);
  new LineJoiner(b, output);
  return { output, a, b, writes, drain };
}

test('chunks cut anywhere come out as whole lines, interleaved only between lines', () => {
  const { a, b, writes } = twoWriters();
  a.write('[INFO] first from a, cut he');
  b.write('[INFO] from b\n[INFO] b again, cut');
  a.write('re\n[INFO] second from a\n');
  b.write(' here\n');
  assert.deepEqual(writes.join('').split('\n'), ['[INFO] from b', '[INFO] first from a, cut here', '[INFO] second from a', '[INFO] b again, cut here', '']);
  for (const write of writes) assert.ok(write.endsWith('\n'), JSON.stringify(write));
});

test('a tail without newline is ended by one when its writer closes', async () => {
  const { out, writes } = recorder();
  const source = new PassThrough();
  new LineJoiner(source, new SharedOutput(out));
  source.end('[INFO] whole\n[FATAL] cut short');
  await new Promise((resolve) => source.on('end', resolve));
  assert.deepEqual(writes, ['[INFO] whole\n', '[FATAL] cut short\n']);
});

test('a full output pauses every writer until it drains', () => {
  const { a, b, writes, drain } = twoWriters(1);
  a.write('one\n');
  assert.equal(a.isPaused(), true);
  b.write('two\n');
  assert.equal(b.isPaused(), true);
  drain();
  assert.equal(a.isPaused(), false);
  assert.equal(b.isPaused(), false);
  assert.deepEqual(writes, ['one\n', 'two\n']);
});

test('while collapsing, a line several writers write alike comes out once (as often as one writer wrote it); then all pass again', () => {
  const { output, a, b, writes } = twoWriters();
  const end = output.collapse();
  a.write('[WARNING] plugin/x: same\n[INFO] only a\n');
  b.write('[WARNING] plugin/x: same\n[INFO] only b\n');
  a.write('[INFO] twice\n[INFO] twice\n');
  b.write('[INFO] twice\n[INFO] twice\n[INFO] twice\n');
  end();
  a.write('[WARNING] plugin/x: same\n');
  b.write('[WARNING] plugin/x: same\n');
  assert.deepEqual(writes.join('').split('\n'), [
    '[WARNING] plugin/x: same',
    '[INFO] only a',
    '[INFO] only b',
    '[INFO] twice',
    '[INFO] twice',
    '[INFO] twice',
    '[WARNING] plugin/x: same',
    '[WARNING] plugin/x: same',
    '',
  ]);
});
