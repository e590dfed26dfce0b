import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Answer } from 'dns-packet';
import { ZoneFileError } from '@foghorn/core';
import { parseZoneFile } from '@foghorn/core/wire';

const origin = 'example.org.';

function parse(text: string, files: Record<string, string> = {}): Answer[] {
  return parseZoneFile(text, {
    origin,
    file: '/zones/db.example.org',
    readFile: (path) => {
      const found = files[path];
      if (found === undefined) throw new Error(`open ${path}: no such file or directory`);
      return found;
    },
  });
}

/** `name ttl class type` plus rdata as JSON, for compact comparisons. */
function line(rr: Answer): string {
  const r = rr as Answer & { ttl: number; class: string; data: unknown };
  const data = Array.isArray(r.data) ? r.data.map((b: Buffer) => b.toString('latin1')) : Buffer.isBuffer(r.data) ? r.data.toString('hex') : r.data;
  return `${r.name} ${r.ttl} ${r.class} ${r.type} ${JSON.stringify(data)}`;
}

test('a zone file with $ORIGIN, $TTL, @, relative names, blank owners, parentheses and comments', () => {
  const text = `$TTL 1h ; default
$ORIGIN example.org.
@   IN  SOA ns1 hostmaster.example.org. (
        2024010101 ; serial
        2h 1H 1w   ; BIND units
        300 )
    IN  NS  ns1
    7200 NS ns2.example.net.
ns1     A       192.0.2.1
www IN 60 AAAA 2001:DB8::1
Mixed.Case  CNAME  WWW
sub.domain  MX 10 mail.example.net.
_sip._tcp   SRV 10 20 5060 sip
ptr PTR host.example.org.
caa CAA 128 issue "ca.example.net; account=1"
ds  DS 60485 5 1 ( 2BB183AF5F22588179A53B0A
                    98631FAD1A292118 )
key DNSKEY 257 3 8 AwEAAa gAQAB==
`;
  assert.deepEqual(parse(text).map(line), [
    'example.org 3600 IN SOA {"mname":"ns1.example.org","rname":"hostmaster.example.org","serial":2024010101,"refresh":7200,"retry":3600,"expire":604800,"minimum":300}',
    'example.org 3600 IN NS "ns1.example.org"',
    'example.org 7200 IN NS "ns2.example.net"',
    'ns1.example.org 3600 IN A "192.0.2.1"',
    'www.example.org 60 IN AAAA "2001:db8::1"',
    'mixed.case.example.org 3600 IN CNAME "www.example.org"',
    'sub.domain.example.org 3600 IN MX {"preference":10,"exchange":"mail.example.net"}',
    '_sip._tcp.example.org 3600 IN SRV {"priority":10,"weight":20,"port":5060,"target":"sip.example.org"}',
    'ptr.example.org 3600 IN PTR "host.example.org"',
    'caa.example.org 3600 IN CAA {"flags":128,"tag":"issue","value":"ca.example.net; account=1","issuerCritical":true}',
    'ds.example.org 3600 IN DS {"keyTag":60485,"algorithm":5,"digestType":1,"digest":{"type":"Buffer","data":[43,177,131,175,95,34,88,129,121,165,59,10,152,99,31,173,26,41,33,24]}}',
    `key.example.org 3600 IN DNSKEY ${JSON.stringify({ flags: 257, algorithm: 8, key: Buffer.from('AwEAAagAQAB==', 'base64') })}`,
  ]);
});

test('a signed zone: RRSIG and NSEC records are read as stored', () => {
  const [sig, nsec] = parse(`@ 1800 RRSIG SOA 8 2 1800 (
      20170112031301 20161213031301 53289 example.org.
      GZ30uFuG ATKz= )
@ 14400 NSEC deb.example.org. A NS SOA RRSIG NSEC DNSKEY
`);
  assert.deepEqual((sig as { data: unknown }).data, {
    typeCovered: 'SOA',
    algorithm: 8,
    labels: 2,
    originalTTL: 1800,
    expiration: Date.UTC(2017, 0, 12, 3, 13, 1) / 1000,
    inception: Date.UTC(2016, 11, 13, 3, 13, 1) / 1000,
    keyTag: 53289,
    signersName: 'example.org',
    signature: Buffer.from('GZ30uFuGATKz=', 'base64'),
  });
  assert.deepEqual((nsec as { data: unknown }).data, { nextDomain: 'deb.example.org', rrtypes: ['A', 'NS', 'SOA', 'RRSIG', 'NSEC', 'DNSKEY'] });
});

test('without $TTL a record takes the last explicit TTL, and 3600 before any (miekg/dns)', () => {
  assert.deepEqual(
    parse('a A 192.0.2.1\nb 20 A 192.0.2.2\nc A 192.0.2.3\n').map((rr) => (rr as { ttl: number }).ttl),
    [3600, 20, 20],
  );
});

test('TXT strings keep quotes, semicolons and escapes; \\DDD is a byte', () => {
  const [rr] = parse('t TXT "say \\"hi\\"; ok" bare\\059word "\\255\\000" ""\n');
  assert.deepEqual((rr as { data: Buffer[] }).data.map((b) => b.toString('hex')), [
    Buffer.from('say "hi"; ok').toString('hex'),
    Buffer.from('bare;word').toString('hex'),
    'ff00',
    '',
  ]);
});

test('names may escape characters that need no escape on the wire', () => {
  const rrs = parse('a\\065b A 192.0.2.1\nx CNAME \\099dn.example.net.\n');
  assert.deepEqual(rrs.map((rr) => rr.name), ['aab.example.org', 'x.example.org']);
  assert.equal((rrs[1] as { data: string }).data, 'cdn.example.net');
});

test('RFC 3597 generic rdata for types without a codec', () => {
  const [rr] = parse('x TYPE65534 \\# 4 0a0B 0c0d\n');
  assert.equal(line(rr!), 'x.example.org 3600 IN UNKNOWN_65534 "0a0b0c0d"');
});

test('$INCLUDE reads a file relative to the including one, with its own origin, and keeps the owner', () => {
  const rrs = parse('www A 192.0.2.1\n$INCLUDE hosts sub\n  AAAA ::1\n', { '/zones/hosts': 'h1 A 192.0.2.10\n@ A 192.0.2.11\n' });
  assert.deepEqual(rrs.map((rr) => `${rr.name} ${rr.type}`), ['www.example.org A', 'h1.sub.example.org A', 'sub.example.org A', 'www.example.org AAAA']);
});

const errors: [string, string, Record<string, string>?][] = [
  ['@ SOA ns1 host ( 1 2 3 4 5\n\n', '/zones/db.example.org:1: unbalanced brace: no closing parenthesis'],
  ['www A 192.0.2.1\n) \n', '/zones/db.example.org:2: extra closing brace'],
  ['www A 192.0.2.1\n\nwww 1x A 192.0.2.1\n', '/zones/db.example.org:3: not a TTL: "1x"'],
  ['www IN BOGUS 1\n', '/zones/db.example.org:1: unknown RR type "BOGUS"'],
  ['www A 192.0.2.1 192.0.2.2\n', '/zones/db.example.org:1: A needs 1 rdata field, got 2'],
  ['www AAAA 192.0.2.1\n', '/zones/db.example.org:1: AAAA bad address: "192.0.2.1"'],
  ['t TXT "open\n\n', '/zones/db.example.org:3: unterminated quoted string'],
  ['m MX 10\n', '/zones/db.example.org:1: MX needs 2 rdata fields, got 1'],
  ['$GENERATE 1-10 host$ A 10.0.0.$\n', '/zones/db.example.org:1: unsupported directive "$GENERATE"'],
  ['n NSEC3 1 0 10 AABB 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR A RRSIG\n', '/zones/db.example.org:1: NSEC3 is not supported in presentation form: write it as \\# LENGTH HEX (RFC 3597)'],
  ['r RRSIG A 8 2 3600 2024-01-01 20231201000000 1 example.org. abc=\n', '/zones/db.example.org:1: RRSIG bad signature time: "2024-01-01"'],
  ['a..b A 192.0.2.1\n', '/zones/db.example.org:1: bad owner name: "a..b"'],
  [`${'a'.repeat(64)} A 192.0.2.1\n`, `/zones/db.example.org:1: bad owner name: "${'a'.repeat(64)}"`],
  [`x CNAME ${'abcdefghi.'.repeat(26)}\n`, `/zones/db.example.org:1: CNAME bad domain name: "${'abcdefghi.'.repeat(26)}"`],
  ['a\\.b A 192.0.2.1\n', '/zones/db.example.org:1: bad owner name: "a\\.b"'],
  ['x CNAME sp\\032ace\n', '/zones/db.example.org:1: CNAME bad domain name: "sp\\032ace"'],
  ['$INCLUDE missing\n', '/zones/db.example.org:1: failed to open `missing\': open /zones/missing: no such file or directory'],
  ['ok A 192.0.2.1\n$INCLUDE inc\n', '/zones/inc:2: A bad address: "300.1.1.1"', { '/zones/inc': 'fine A 192.0.2.2\nbad A 300.1.1.1\n' }],
  // A file that includes itself, directly or through another, is a loop, found at once.
  ['$INCLUDE db.example.org\n', "/zones/db.example.org:1: $INCLUDE loop: `db.example.org' is already being read", { '/zones/db.example.org': '$INCLUDE db.example.org\n' }],
  ['a A 192.0.2.1\n$INCLUDE one\n', "/zones/two:1: $INCLUDE loop: `../zones/one' is already being read", { '/zones/one': '$INCLUDE two\n', '/zones/two': '$INCLUDE ../zones/one\n' }],
  // Without the cap, 8 levels of files including the next one ten times would be 10^7 reads.
  ['$INCLUDE l1\n', '/zones/l6:8: more than 1000 $INCLUDEs', Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`/zones/l${n}`, `$INCLUDE l${n + 1}\n`.repeat(10)]).concat([['/zones/l7', 'x A 192.0.2.1\n']]))],
];

for (const [text, message, files] of errors) {
  test(`a broken zone file is refused at its line: ${message.slice(message.indexOf(': ') + 2)}`, () => {
    assert.throws(
      () => parse(text, files),
      (error: unknown) => {
        assert.ok(error instanceof ZoneFileError);
        assert.equal(error.message, message);
        return true;
      },
    );
  });
}
