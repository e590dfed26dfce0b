/**
 * The rewrite setup table: CoreDNS's TestNewRule, TestParse, TestNewTTLRule and TestNewRCodeRule
 * (plugin/rewrite/*_test.go) as Corefile lines, plus the positions of the errors.
 */
import { parseDirective, setupTable } from '@foghorn/testkit';
import type { Controller } from '@foghorn/core';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import rewrite, { parseRewrite } from '@foghorn/plugin-rewrite';

/** What a parsed rule is: its class and mode, as CoreDNS's table checks the rule's Go type. */
const kinds = (c: Controller): string[] => parseRewrite(c).map((rule) => `${rule.constructor.name} ${rule.mode}`);

/** CoreDNS's TestNewRule rows: the arguments of one rewrite line, and the rule they make or null for an error. */
const newRuleRows: [string, string | null][] = [
  ['foo', null],
  ['name', null],
  ['name a.com', null],
  ['name a.com b.com c.com', null],
  ['name a.com b.com', 'NameRule'],
  ['name exact a.com b.com', 'NameRule'],
  ['name prefix a.com b.com', 'NameRule'],
  ['name suffix a.com b.com', 'NameRule'],
  ['name substring a.com b.com', 'NameRule'],
  ['name regex ([a])\\.com new-{1}.com', 'NameRule'],
  ['name regex ([a]\\.com new-{1}.com', null],
  ['name regex (dns)\\.(core)\\.(rocks) {2}.{1}.{3} answer name (core)\\.(dns)\\.(rocks) {2}.{1}.{3}', 'NameRule'],
  ['name regex (adns)\\.(core)\\.(rocks) {2}.{1}.{3} answer name (core)\\.(adns)\\.(rocks) {2}.{1}.{3} too.long way.too.long', null],
  ['name regex (bdns)\\.(core)\\.(rocks) {2}.{1}.{3} NoAnswer name (core)\\.(bdns)\\.(rocks) {2}.{1}.{3}', null],
  ['name regex (cdns)\\.(core)\\.(rocks) {2}.{1}.{3} answer ttl (core)\\.(cdns)\\.(rocks) {2}.{1}.{3}', null],
  ['name substring fcore.dns.rocks dns.fcore.rocks answer name (fcore)\\.(dns)\\.(rocks) {2}.{1}.{3}', 'NameRule'],
  ['name substring a.com b.com c.com', null],
  ['type', null],
  ['type a', null],
  ['type any a a', null],
  ['type any a', 'TypeRule'],
  ['type XY WV', null],
  ['type ANY WV', null],
  ['class', null],
  ['class IN', null],
  ['class ch in in', null],
  ['class ch in', 'ClassRule'],
  ['class XY WV', null],
  ['class IN WV', null],
  ['edns0', null],
  ['edns0 unknown-rule-type set', null],
  ['edns0 unknown-rule-type unset', null],
  ['edns0 local', null],
  ['edns0 local set', null],
  ['edns0 local set 0xffee', null],
  ['edns0 local set invalid-uint abcdefg', null],
  ['edns0 local set 65518 abcdefg', 'OptionRule'],
  ['edns0 local set 0xffee abcdefg', 'OptionRule'],
  ['edns0 local set 0xffee abcdefg revert', 'OptionRule'],
  ['edns0 local append 0xffee abcdefg', 'OptionRule'],
  ['edns0 local append 0xffee abcdefg revert', 'OptionRule'],
  ['edns0 local replace 0xffee abcdefg', 'OptionRule'],
  ['edns0 local replace 0xffee abcdefg revert', 'OptionRule'],
  ['edns0 local unset 0xffee', 'OptionRule'],
  ['edns0 local unset 0xffee abcdefg', null],
  ['edns0 local unset 0xffee revert', null],
  ['edns0 local foo 0xffee abcdefg', null],
  ['edns0 local set 0xffee 0xabcdefg', null],
  ['edns0 nsid set junk', null],
  ['edns0 nsid set', 'OptionRule'],
  ['edns0 nsid set revert', 'OptionRule'],
  ['edns0 nsid append', 'OptionRule'],
  ['edns0 nsid append revert', 'OptionRule'],
  ['edns0 nsid replace', 'OptionRule'],
  ['edns0 nsid replace revert', 'OptionRule'],
  ['edns0 nsid unset', 'OptionRule'],
  ['edns0 nsid unset revert', null],
  ['edns0 nsid foo', null],
  ['edns0 local set invalid-uint {qname}', null],
  ['edns0 local set 0xffee {dummy}', null],
  ...['set', 'append', 'replace'].flatMap((action): [string, string | null][] => [
    ...['{qname}', '{qtype}', '{client_ip}', '{client_port}', '{protocol}', '{server_ip}', '{server_port}', '{server_port} revert'].map(
      (variable): [string, string] => [`edns0 local ${action} 0xffee ${variable}`, 'OptionRule'],
    ),
  ]),
  ['edns0 local append 0xffee {dummy}', null],
  ['edns0 local replace 0xffee {dummy}', null],
  ['edns0 subnet set -1 56', null],
  ['edns0 subnet set 24 -56', null],
  ['edns0 subnet set 33 56', null],
  ['edns0 subnet set 24 129', null],
  ['edns0 subnet set 24 56', 'SubnetRule'],
  ['edns0 subnet set 24 56 revert', 'SubnetRule'],
  ['edns0 subnet append 24 56', 'SubnetRule'],
  ['edns0 subnet append 24 56 72', null],
  ['edns0 subnet append 24 56 revert', 'SubnetRule'],
  ['edns0 subnet replace 24 56', 'SubnetRule'],
  ['edns0 subnet replace 24 56 revert', 'SubnetRule'],
  ['edns0 subnet unset', 'SubnetRule'],
  ['edns0 subnet unset 24 56', null],
  ['edns0 subnet unset revert', null],
  ['unknown-action name a.com b.com', null],
  ['unknown-action type any a', null],
  ['unknown-action class ch in', null],
  ['unknown-action edns0 local set 0xffee abcedef', null],
  ['unknown-action edns0 nsid set', null],
  ['unknown-action edns0 subnet set 24 64', null],
  // CoreDNS's TestNewTTLRule.
  ['ttl srv1.coredns.rocks 10', 'TtlRule'],
  ['ttl exact srv1.coredns.rocks 15', 'TtlRule'],
  ['ttl prefix coredns.rocks 20', 'TtlRule'],
  ['ttl suffix srv1 25', 'TtlRule'],
  ['ttl substring coredns 30', 'TtlRule'],
  ['ttl regex (srv1)\\.(coredns)\\.(rocks) 35', 'TtlRule'],
  ['ttl srv1.coredns.rocks 12345678901234567890', null],
  ['ttl srv1.coredns.rocks coredns.rocks', null],
  ['ttl srv1.coredns.rocks #1', 'comment'],
  ['ttl range.coredns.rocks 1-2', 'TtlRule'],
  ['ttl ceil.coredns.rocks -2', 'TtlRule'],
  ['ttl floor.coredns.rocks 1-', 'TtlRule'],
  ['ttl range.coredns.rocks 2-2', 'TtlRule'],
  ['ttl invalid.coredns.rocks -', null],
  ['ttl invalid.coredns.rocks 2-1', null],
  ['ttl invalid.coredns.rocks 5-10-20', null],
  // CoreDNS's TestNewRCodeRule.
  ['rcode srv1.coredns.rocks 2 0', 'RcodeRule'],
  ['rcode exact srv1.coredns.rocks SERVFAIL NOERROR', 'RcodeRule'],
  ['rcode prefix coredns.rocks Refused NoError', 'RcodeRule'],
  ['rcode suffix srv1 NXDOMAIN 0', 'RcodeRule'],
  ['rcode substring coredns 5 0', 'RcodeRule'],
  ['rcode regex (srv1)\\.(coredns)\\.(rocks) REFUSED NOERROR', 'RcodeRule'],
  ['rcode srv1.coredns.rocks 12345678901234567890 0', null],
  ['rcode srv1.coredns.rocks coredns.rocks 0', null],
  ['rcode srv1.coredns.rocks 24 0', null],
  ['rcode srv1.coredns.rocks 0 Lorem', null],
  ['rcode srv1.coredns.rocks', null],
  // CoreDNS's TestNewCNAMERule, in short.
  ['cname exact def.example.com. xyz.example.com.', 'CnameRule'],
  ['cname regex (.*).cdn.example.net. {1}.other.cdn.com.', 'CnameRule'],
  ['cname suffix .example.com. .example.net.', 'CnameRule'],
  ['cname fuzzy a.com. b.com.', null],
  ['cname a.com.', null],
];

test('the TestNewRule rows give the rule CoreDNS gives, or an error', async () => {
  for (const [line, want] of newRuleRows) {
    for (const mode of want === 'comment' ? [''] : ['', 'stop ', 'continue ']) {
      const body = `rewrite ${mode}${line}`;
      if (want === null || want === 'comment') {
        // `#1` starts a comment in a Corefile, so that TTL row is a line with no TTL at all.
        await assert.rejects(parseDirective('rewrite', kinds, body), (e: Error) => /^plugin\/rewrite: Corefile:2:\d+ - Error during parsing: /.test(e.message), body);
      } else {
        assert.deepEqual(await parseDirective('rewrite', kinds, body), [`${want} ${mode.trim() || 'stop'}`], body);
      }
    }
  }
});

setupTable('rewrite', kinds, {
  plugin: rewrite,
  good: [
    // CoreDNS's TestParse.
    { input: 'rewrite name a.com b.com', want: ['NameRule stop'] },
    { input: 'rewrite stop {\n    name regex foo bar\n    answer name bar foo\n}', want: ['NameRule stop'] },
    { input: 'rewrite stop name regex foo bar answer name bar foo', want: ['NameRule stop'] },
    // Several rewrite lines are several rules, in file order.
    { input: 'rewrite continue type ANY HINFO\nrewrite name a.com b.com\nrewrite ttl a.com 30', want: ['TypeRule continue', 'NameRule stop', 'TtlRule stop'] },
    // The README's answer options, `answer` left out after the first.
    { input: 'rewrite stop name regex (.*)-(us-west-1)\\.coredns\\.rocks {1}.service.{2}.consul answer name (.*)\\.service\\.(us-west-1)\\.consul {1}-{2}.coredns.rocks value (.*)\\.service\\.consul\\. {1}.coredns.rocks.', want: ['NameRule stop'] },
    { input: 'rewrite stop {\n    name suffix .arpa .arpa\n    answer name auto\n    answer value (.*)\\.service\\.consul\\. {1}.coredns.rocks.\n}', want: ['NameRule stop'] },
    { input: 'rewrite continue {\n    edns0 local set 0xffee abcd\n}\nrewrite edns0 local replace 0xffee bcde revert', want: ['OptionRule continue', 'OptionRule stop'] },
  ],
  bad: [
    // CoreDNS's TestParse.
    { input: 'rewrite', error: 'Corefile:2:1 - Error during parsing: no rule type specified for rewrite' },
    { input: 'rewrite name', error: 'Corefile:2:9 - Error during parsing: too few arguments for a name rule' },
    { input: 'rewrite stop {\n    name regex foo bar\n    answer name bar foo\n    name baz\n}', error: 'Corefile:5:5 - Error during parsing: name answer rule for regex rule: 2 arguments required' },
    { input: 'rewrite stop {\n    answer name bar foo\n    name regex foo bar\n}', error: 'Corefile:3:5 - Error during parsing: response rewrites must begin with a name rule' },
    { input: 'rewrite stop', error: 'Corefile:2:9 - Error during parsing: stop rule must begin with a rule type' },
    { input: 'rewrite continue', error: 'Corefile:2:9 - Error during parsing: continue rule must begin with a rule type' },
    { input: 'rewrite stop name regex [bad[ bar answer name bar foo', error: 'Corefile:2:25 - Error during parsing: invalid regex matching pattern: [bad[' },
    // Positions of the other errors: the offending token.
    { input: 'rewrite unknown-action name a.com b.com', error: 'Corefile:2:9 - Error during parsing: invalid rule type "unknown-action"' },
    { input: 'rewrite type ANY WV', error: 'Corefile:2:18 - Error during parsing: invalid type "WV"' },
    { input: 'rewrite class XY IN', error: 'Corefile:2:15 - Error during parsing: invalid class "XY"' },
    { input: 'rewrite type a', error: 'Corefile:2:9 - Error during parsing: type rules must have exactly two arguments' },
    { input: 'rewrite name regex (a)\\.com {1}{2}.com', error: 'uses more subexpressions than its corresponding matching regex pattern ((a)\\.com)' },
    { input: 'rewrite name fuzzy a.com b.com', error: 'name rule supports only exact, prefix, suffix, substring, and regex name matching, received: fuzzy' },
    { input: 'rewrite name regex (a) b answer auto answer name (b) a', error: 'auto name answer rule cannot be combined with explicit name anwer rules' },
    { input: 'rewrite name regex (a) b answer magic x y', error: 'Corefile:2:33 - Error during parsing: invalid type "magic" for answer rule for regex rule' },
    { input: 'rewrite ttl srv1.coredns.rocks 2-1', error: "Corefile:2:32 - Error during parsing: invalid TTL '2-1' for a ttl rule" },
    { input: 'rewrite ttl fuzzy a.com 10', error: 'ttl rule supports only exact, prefix, suffix, substring, and regex name matching' },
    { input: 'rewrite ttl regex (a 10', error: 'Corefile:2:19 - Error during parsing: invalid regex pattern in a ttl rule: (a' },
    { input: 'rewrite rcode a.com 24 0', error: "Corefile:2:21 - Error during parsing: invalid matching RCODE '24' for a rcode rule" },
    { input: 'rewrite rcode a.com 0 Lorem', error: "Corefile:2:23 - Error during parsing: invalid replacement RCODE 'Lorem' for a rcode rule" },
    { input: 'rewrite edns0 local set invalid-uint abcdefg', error: 'Corefile:2:25 - Error during parsing: strconv.ParseUint: parsing "invalid-uint": invalid syntax' },
    { input: 'rewrite edns0 local set 0xffee 0xabcdefg', error: "Corefile:2:32 - Error during parsing: encoding/hex: invalid byte: U+0067 'g'" },
    { input: 'rewrite edns0 local set 0xffee 0xabc', error: 'encoding/hex: odd length hex string' },
    { input: 'rewrite edns0 local set 0xffee {dummy}', error: 'Corefile:2:32 - Error during parsing: unsupported variable name "{dummy}"' },
    { input: 'rewrite edns0 local foo 0xffee abcdefg', error: 'Corefile:2:21 - Error during parsing: invalid action: "foo"' },
    { input: 'rewrite edns0 subnet set 33 56', error: 'Corefile:2:26 - Error during parsing: invalid IPv4 bit mask length 33' },
    { input: 'rewrite edns0 subnet set 24 129', error: 'Corefile:2:29 - Error during parsing: invalid IPv6 bit mask length 129' },
    { input: 'rewrite edns0 nsid set junk', error: 'EDNS0 NSID rules can accept no more than one arg' },
    { input: 'rewrite edns0 local unset 0xffee revert', error: 'local unset action requires exactly two arguments' },
    { input: 'rewrite cname fuzzy a.com. b.com.', error: 'unknown cname rewrite type: fuzzy' },
    { input: `rewrite name regex ${'a'.repeat(10001)} b`, error: 'regex pattern too long: 10001 > 10000' },
  ],
});
