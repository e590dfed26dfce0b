/**
 * The template setup table: CoreDNS's TestSetup and TestSetupParse (plugin/template/setup_test.go)
 * as Corefile bodies, the positions of the errors, and what Foghorn refuses that CoreDNS accepts
 * (`var`, `expr`, template constructs beyond the README's).
 */
import { setupTable } from '@foghorn/testkit';
import type { Controller } from '@foghorn/core';
import template, { parseTemplate } from '@foghorn/plugin-template';

/** What a table compares: per template its class, type, zones, regexes, rcode and fallthrough zones. */
const summary = (c: Controller) =>
  parseTemplate(c).map((t) => ({
    qclass: t.qclass,
    qtype: t.qtype,
    zones: t.zones,
    regexes: t.regexes.map((r) => r.source),
    sections: [t.answer.length, t.additional.length, t.authority.length],
    rcode: t.rcode,
    ederror: t.ederror,
    fallthrough: t.fallthrough,
  }));

const base = { qclass: 255, qtype: 255, zones: ['domain.com.', 'dynamic.domain.com.'], regexes: ['.*'], sections: [0, 0, 0], rcode: 0, ederror: null, fallthrough: [] };

setupTable('template', summary, {
  key: 'domain.com.:8053 dynamic.domain.com.:8053',
  plugin: template,
  good: [
    { input: 'template ANY ANY {\n rcode NXDOMAIN\n}', want: [{ ...base, rcode: 3 }] },
    { input: 'template ANY ANY {\n answer "{{ parseInt }}"\n additional "{{ parseInt }}"\n authority "{{ parseInt }}"\n}', want: [{ ...base, sections: [1, 1, 1] }] },
    // A zone argument that is no zone is skipped, as CoreDNS skips it.
    { input: 'template ANY ANY (?P<x>', want: [{ ...base, zones: ['(?p<x>.'] }] },
    { input: 'template ANY ANY {\n\n}', want: [base] },
    {
      // An unknown field (`.Grup`) is an error only when the template runs, as in Go.
      input: 'template ANY A example.com {\n match ip-(?P<a>[0-9]*)-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]com\n answer "{{ .Name }} A {{ .Group.a }}.{{ .Group.b }}.{{ .Group.c }}.{{ .Grup.d }}."\n fallthrough\n}',
      want: [{ ...base, qtype: 1, zones: ['example.com.'], regexes: ['ip-(?<a>[0-9]*)-(?<b>[0-9]*)-(?<c>[0-9]*)-(?<d>[0-9]*)[.]example[.]com'], sections: [1, 0, 0], fallthrough: ['.'] }],
    },
    {
      input: 'template ANY AAAA example.com {\n match ip-(?P<a>[0-9]*)-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]com\n authority "example.com 60 IN SOA ns.example.com hostmaster.example.com (1 60 60 60 60)"\n fallthrough\n}',
      want: [{ ...base, qtype: 28, zones: ['example.com.'], regexes: ['ip-(?<a>[0-9]*)-(?<b>[0-9]*)-(?<c>[0-9]*)-(?<d>[0-9]*)[.]example[.]com'], sections: [0, 0, 1], fallthrough: ['.'] }],
    },
    {
      input: 'template IN ANY example.com {\n match "[.](example[.]com[.]dc1[.]example[.]com[.])$"\n rcode NXDOMAIN\n authority "{{ index .Match 1 }} 60 IN SOA ns.{{ index .Match 1 }} hostmaster.example.com (1 60 60 60 60)"\n fallthrough example.com\n}',
      want: [{ ...base, qclass: 1, zones: ['example.com.'], regexes: ['[.](example[.]com[.]dc1[.]example[.]com[.])$'], sections: [0, 0, 1], rcode: 3, fallthrough: ['example.com.'] }],
    },
    {
      input: 'template IN A example {\n match ^ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$\n answer "{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n}\ntemplate IN MX example. {\n match ^ip-10-(?P<b>[0-9]*)-(?P<c>[0-9]*)-(?P<d>[0-9]*)[.]example[.]$\n answer "{{ .Name }} 60 IN MX 10 {{ .Name }}"\n additional "{{ .Name }} 60 IN A 10.{{ .Group.b }}.{{ .Group.c }}.{{ .Group.d }}"\n}',
      want: [
        { ...base, qclass: 1, qtype: 1, zones: ['example.'], regexes: ['^ip-10-(?<b>[0-9]*)-(?<c>[0-9]*)-(?<d>[0-9]*)[.]example[.]$'], sections: [1, 0, 0] },
        { ...base, qclass: 1, qtype: 15, zones: ['example.'], regexes: ['^ip-10-(?<b>[0-9]*)-(?<c>[0-9]*)-(?<d>[0-9]*)[.]example[.]$'], sections: [1, 1, 0] },
      ],
    },
    {
      input: 'template ANY ANY invalid {\n rcode NXDOMAIN\n authority "invalid. 60 {{ .Class }} SOA ns.invalid. hostmaster.invalid. (1 60 60 60 60)"\n ederror 21 "Blocked according to RFC2606"\n}',
      want: [{ ...base, zones: ['invalid.'], sections: [0, 0, 1], rcode: 3, ederror: { code: 21, reason: 'Blocked according to RFC2606' } }],
    },
    { input: 'template IN A example {\n upstream\n fallthrough in-addr.arpa ip6.arpa\n}', want: [{ ...base, qclass: 1, qtype: 1, zones: ['example.'], fallthrough: ['in-addr.arpa.', 'ip6.arpa.'] }] },
  ],
  bad: [
    // CoreDNS's TestSetup and TestSetupParse.
    { input: 'template ANY ANY {\n rcode\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'rcode'" },
    { input: 'template', error: "Corefile:2:1 - Error during parsing: Wrong argument count or unexpected line ending after 'template'" },
    { input: 'template X', error: 'Corefile:2:10 - Error during parsing: invalid query class X' },
    { input: 'template ANY', error: "Corefile:2:10 - Error during parsing: Wrong argument count or unexpected line ending after 'ANY'" },
    { input: 'template ANY X', error: 'Corefile:2:14 - Error during parsing: invalid RR class X' },
    { input: 'template ANY ANY .* {\n notavailable\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'notavailable'" },
    { input: 'template ANY ANY {\n answer\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'answer'" },
    { input: 'template ANY ANY {\n additional\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'additional'" },
    { input: 'template ANY ANY {\n rcode UNDEFINED\n}', error: 'Corefile:3:8 - Error during parsing: unknown rcode UNDEFINED' },
    { input: 'template ANY ANY {\n answer\t"{{"\n}', error: 'Corefile:3:9 - Error during parsing: could not compile template: {{, template: answer:1: unclosed action' },
    { input: 'template ANY ANY {\n additional "{{"\n}', error: 'Corefile:3:13 - Error during parsing: could not compile template: {{, template: additional:1: unclosed action' },
    { input: 'template ANY ANY {\n authority "{{"\n}', error: 'Corefile:3:12 - Error during parsing: could not compile template: {{, template: authority:1: unclosed action' },
    { input: 'template ANY ANY {\n answer "{{ notAFunction }}"\n}', error: 'template: answer:1: function "notAFunction" not defined' },
    { input: 'template ANY ANY invalid {\n ederror invalid "Blocked according to RFC2606"\n}', error: 'Corefile:3:10 - Error during parsing: error parsing extended DNS error code Blocked according to RFC2606, strconv.ParseUint: parsing "invalid": invalid syntax' },
    { input: 'template ANY ANY invalid {\n ederror too many arguments\n}', error: "Wrong argument count or unexpected line ending after 'arguments'" },
    // Case matters to CoreDNS: `in` is no class, `a` no type.
    { input: 'template in A', error: 'invalid query class in' },
    { input: 'template IN a', error: 'invalid RR class a' },
    { input: 'template IN A {\n match (a\n}', error: 'Corefile:3:8 - Error during parsing: could not parse regex: (a, error parsing regexp: ' },
    { input: `template IN A {\n match ${'a'.repeat(10001)}\n}`, error: 'regex pattern too long: 10001 > 10000' },
    // What Foghorn does not support is refused where it is written.
    { input: 'template IN A example {\n var ip replace(group(\'ip\'), \'-\', \'.\')\n}', error: "Corefile:3:2 - Error during parsing: var is not supported by Foghorn's template plugin" },
    { input: 'template IN A example {\n expr "true"\n}', error: "Corefile:3:2 - Error during parsing: expr is not supported by Foghorn's template plugin" },
    { input: 'template IN A example {\n answer "{{ if .Name }}x{{ end }}"\n}', error: "Corefile:3:9 - Error during parsing: could not compile template: {{ if .Name }}x{{ end }}, template: answer:1: {{ if }} is not supported by Foghorn's template engine" },
    { input: 'template IN A example {\n answer "{{ printf \\"%s\\" .Name }}"\n}', error: 'function "printf" is not supported by Foghorn\'s template engine' },
    { input: 'template IN A example {\n answer "{{ .Message }}"\n}', error: ".Message is not supported by Foghorn's template engine" },
    { input: 'template IN A example {\n answer "{{ $x := 1 }}"\n}', error: "template variables ($) are not supported by Foghorn's template engine" },
  ],
});
