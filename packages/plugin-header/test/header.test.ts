import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Flags, Rcode, replyTo } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import template from '@foghorn/plugin-template';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, query, rcodeOf, reply, startServer, testPlugin, upstreamFor } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import header from '../src/index.js';

/** CoreDNS's test `next`: writes the request itself back, so query rules show in the reply. */
const echo: PluginDefinition = testPlugin('echo', () => ({
  name: 'echo',
  serveDNS(req, w) {
    w.write({ type: 'response', id: req.id, flags: req.flags, questions: replyTo(req).questions });
    return Rcode.NOERROR;
  },
}));

/** Answers SERVFAIL without writing: the server writes that reply, not the plugin. */
const failing: PluginDefinition = testPlugin('failing', () => ({ name: 'failing', serveDNS: () => Rcode.SERVFAIL }));

const directives = directivesOf(bind, header, template, forward, echo, failing, whoami);

const flagsOf = (r: Reply) => ({ aa: r.flag_aa, ra: r.flag_ra, rd: r.flag_rd });

async function serve(t: { after(fn: () => unknown): void }, rules: string, rest: string): Promise<number> {
  const server = await startServer(`example.org:0 {\n bind 127.0.0.1\n header {\n  ${rules}\n }\n ${rest}\n}\n`, { directives });
  t.after(() => server.close());
  return server.port();
}

// CoreDNS's TestHeaderResponseRules: one rule each, the reply being the request written back.
for (const [rules, flag, want] of [
  ['response set ra', 'ra', true],
  ['response clear ra', 'ra', false],
  ['response set rd', 'rd', true],
  ['response set aa', 'aa', true],
] as const) {
  test(`'${rules}' gives every reply ${flag} ${want ? 'set' : 'clear'} over UDP and TCP (CoreDNS TestHeaderResponseRules)`, async (t) => {
    const port = await serve(t, rules, 'echo');
    for (const transport of ['udp', 'tcp'] as const) {
      for (const flags of [0, Flags.RD, Flags.RD | Flags.AA | Flags.RA]) {
        const r = await query({ port }, 'example.org', 'A', { transport, flags });
        assert.equal(flagsOf(r)[flag], want, `${transport}, query flags ${flags}`);
      }
    }
  });
}

// CoreDNS's TestHeaderQueryRules: the request changes in place, so the plugins after header
// (here one that writes the request back) see the new flags.
for (const [rules, flag, want] of [
  ['query set ra', 'ra', true],
  ['query set rd', 'rd', true],
  ['query clear rd', 'rd', false],
  ['query set aa', 'aa', true],
] as const) {
  test(`'${rules}' gives the query ${flag} ${want ? 'set' : 'clear'} for every plugin after header (CoreDNS TestHeaderQueryRules)`, async (t) => {
    const port = await serve(t, rules, 'echo');
    for (const flags of [0, Flags.RD]) {
      const r = await query({ port }, 'example.org', 'A', { flags });
      assert.equal(flagsOf(r)[flag], want, `query flags ${flags}`);
    }
  });
}

test('response rules patch pre-encoded replies (whoami) and message replies (template) alike', async (t) => {
  const rules = 'response set ra aa\n  response clear rd';
  const wirePort = await serve(t, rules, 'whoami');
  const messagePort = await serve(t, rules, 'template IN A example.org {\n  answer "{{ .Name }} 60 IN A 192.0.2.1"\n }');
  for (const port of [wirePort, messagePort]) {
    for (const transport of ['udp', 'tcp'] as const) {
      const r = await query({ port }, 'example.org', 'A', { transport });
      assert.deepEqual(flagsOf(r), { aa: true, ra: true, rd: false }, `port ${port} ${transport}`);
      assert.equal(rcodeOf(r), 'NOERROR');
    }
  }
  // The rest of the reply is untouched: whoami's records, template's answer.
  const w = await query({ port: wirePort }, 'example.org', 'A');
  assert.deepEqual(w.additionals?.map((rr) => rr.type), ['A', 'SRV']);
  const m = await query({ port: messagePort }, 'example.org', 'A', { udpSize: 1232 });
  assert.deepEqual(m.answers?.map((rr) => (rr.type === 'A' ? rr.data : rr.type)), ['192.0.2.1']);
  assert.deepEqual(m.additionals?.map((rr) => rr.type), ['OPT']);
});

test('query rules reach the upstream forward asks, and its reply comes back through the response rules', async (t) => {
  const upstream = await upstreamFor(t, (q) => [reply(q, { answers: [{ name: 'example.org', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.7' }] })]);
  const port = await serve(t, 'query clear rd\n  response set aa', `forward . ${upstream.address}`);
  const r = await query({ port }, 'example.org', 'A', { flags: Flags.RD });
  assert.deepEqual(r.answers?.map((rr) => (rr.type === 'A' ? rr.data : rr.type)), ['192.0.2.7']);
  assert.equal(r.flag_aa, true);
  assert.equal(r.flag_rd, false, 'the upstream answered the query as header changed it');
  const seen = upstream.lookups.at(-1);
  assert.ok(seen, 'the upstream was asked');
  assert.equal(seen.raw.readUInt16BE(2) & Flags.RD, 0);
});

test('a reply the server writes itself (the plugin below returned SERVFAIL) is not changed, as in CoreDNS', async (t) => {
  const port = await serve(t, 'response set aa ra', 'failing');
  const r = await query({ port }, 'example.org', 'A');
  assert.equal(rcodeOf(r), 'SERVFAIL');
  assert.deepEqual(flagsOf(r), { aa: false, ra: false, rd: true });
});
