import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import { lookupVia, PluginError, Rcode, replyTo, Request } from '@foghorn/core';
import type { Handler } from '@foghorn/core';

const from = Request.fromWire(dnsPacket.encode({ type: 'query', id: 99, questions: [{ name: 'www.example.org', type: 'A' }] }), 'tcp', '192.0.2.7', 5300);
from.zone = 'example.org.';

test('lookupVia asks the next handler as the original client and returns its reply, object or wire', async () => {
  const seen: Request[] = [];
  const answer = (wire: boolean): Handler => ({
    name: 'answer',
    serveDNS(req, w) {
      seen.push(req);
      const msg = { ...replyTo(req), answers: [{ name: req.name, type: 'AAAA' as const, ttl: 5, data: '2001:db8::1' }] };
      if (wire) w.writeWire(dnsPacket.encode(msg));
      else w.write(msg);
      return Rcode.NOERROR;
    },
  });
  for (const wire of [false, true]) {
    const reply = await lookupVia(answer(wire), 'test', from, 'target.example.net.', 28);
    // An object reply comes back as written (names with the dot), a wire reply decoded (without).
    assert.deepEqual(reply?.answers?.map((rr) => [rr.name.replace(/\.$/, ''), rr.type]), [['target.example.net', 'AAAA']]);
  }
  const req = seen[0]!;
  assert.deepEqual([req.qname, req.qtype, req.transport, req.remoteAddress, req.zone, req.recursionDesired], ['target.example.net.', 28, 'tcp', '192.0.2.7', 'example.org.', true]);
});

test('lookupVia gives undefined when nothing is written and fails without a next handler', async () => {
  const silent: Handler = { name: 'silent', serveDNS: () => Rcode.SERVFAIL };
  assert.equal(await lookupVia(silent, 'test', from, 'x.example.', 1), undefined);
  await assert.rejects(lookupVia(null, 'test', from, 'x.example.', 1), (e: Error) => e instanceof PluginError && e.message === 'plugin/test: no next plugin found');
});
