import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Request } from '../src/request.js';
import { Recorder, replyTo } from '../src/response.js';
import type { ResponseWriter } from '../src/response.js';
import dnsPacket from 'dns-packet';

/** Counts what reaches the end of the writers, as the listener's writer would send it. */
function sink(): ResponseWriter & { sent: number } {
  return {
    sent: 0,
    write(msg) {
      this.sent++;
      return dnsPacket.encodingLength(msg);
    },
    writeWire(wire) {
      this.sent++;
      return wire.length;
    },
  };
}

const req = Request.fromWire(dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'example.org' }] }), 'udp', '127.0.0.1', 53);

test('Recorder.over shares a recorder that has recorded nothing and measures enough', () => {
  const end = sink();
  const outer = Recorder.over(end);
  assert.notEqual(outer, end);
  assert.equal(Recorder.over(outer), outer, 'a fresh measuring recorder is shared');
  assert.equal(Recorder.over(outer, false), outer, 'one that measures more than asked is shared too');

  const counting = new Recorder(end, false);
  const measuring = Recorder.over(counting, true);
  assert.notEqual(measuring, counting, 'a recorder that only counts bytes sent cannot stand in for one that measures');
  assert.equal(measuring.inner, counting);

  const msg = replyTo(req, 3);
  outer.write(msg);
  const later = Recorder.over(outer);
  assert.notEqual(later, outer, 'a recorder that saw a reply is not shared: the new one sees only what comes after');
  assert.equal(later.rcode, -1);
  later.write(replyTo(req, 0));
  assert.equal(later.rcode, 0);
  assert.equal(outer.rcode, 0, 'the write went through the outer recorder too');
  assert.equal(outer.size, 2 * dnsPacket.encodingLength(msg));
  assert.equal(end.sent, 2);
});
