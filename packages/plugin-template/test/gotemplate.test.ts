/** The template engine against Go's text/template behaviour for the constructs it supports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoTemplate, TemplateError } from '@foghorn/plugin-template';

/** Dot: a map of the fields the tests read (field access on a map reads its keys, as in Go). */
const dot = new Map<string, unknown>([
  ['Name', 'ip-10-1-2-3.example.'],
  ['Match', ['ip-10-1-2-3.example.', '1', '2']],
  ['Group', new Map([['0', 'ip-10-1-2-3.example.'], ['1', '1'], ['b', '2']])],
]);

function render(text: string): string {
  return GoTemplate.compile('answer', text).execute(dot as never);
}

test('fields, index, len, print, parentheses and pipelines render as Go renders them', () => {
  const rows: [string, string][] = [
    ['{{ .Name }} 60 IN A 10.0.0.1', 'ip-10-1-2-3.example. 60 IN A 10.0.0.1'],
    ['{{ .Group.b }}', '2'],
    ['{{ index .Match 1 }}.{{ index .Group "b" }}', '1.2'],
    // A missing key: `<no value>` through a field, the zero value through index.
    ['[{{ .Group.zz }}][{{ index .Group "zz" }}]', '[<no value>][]'],
    ['{{ len .Match }} {{ len .Name }}', '3 20'],
    ['{{ print 1 2 "a" "b" 3 }}', '1 2ab3'],
    ['{{ .Match }} {{ .Group }}', '[ip-10-1-2-3.example. 1 2] map[0:ip-10-1-2-3.example. 1:1 b:2]'],
    ['a  {{- .Group.b -}}  z', 'a2z'],
    ['a {{/* a comment */}}z', 'a z'],
    ['{{ (index .Match 2) }}{{ `raw\\n` }}', '2raw\\n'],
  ];
  for (const [text, want] of rows) assert.equal(render(text), want, text);
});

test('parseInt is strconv.ParseUint: bases, bit sizes and errors', () => {
  assert.equal(render('{{ parseInt "ff" 16 8 }} {{ parseInt "0x10" 0 64 }} {{ parseInt "18446744073709551615" 10 64 }}'), '255 16 18446744073709551615');
  assert.throws(() => render('{{ parseInt "100" 16 8 }}'), /strconv.ParseUint: parsing "100": value out of range/);
  assert.throws(() => render('{{ parseInt "-1" 10 8 }}'), /strconv.ParseUint: parsing "-1": invalid syntax/);
  assert.throws(() => render('{{ parseInt "1" 99 8 }}'), /invalid base 99/);
  // A piped value is the last argument: `"7f" | parseInt` calls parseInt with one argument.
  assert.throws(() => render('{{ "7f" | parseInt }}'), /wrong number of args for parseInt: want 3 got 1/);
  assert.equal(render('{{ 8 | parseInt "7f" 16 }}'), '127');
});

test('the template prints as Go prints its parse tree (the metric label)', () => {
  assert.equal(String(GoTemplate.compile('answer', '{{ .Name }} 60 IN A {{ parseInt .Group.b 16 8 }} {{- /* x */ -}} {{ index .Match 1 | print }}')), '{{.Name}} 60 IN A {{parseInt .Group.b 16 8}}{{index .Match 1 | print}}');
});

test('compile errors use Go\'s words, and name what Foghorn does not support', () => {
  const errors: [string, string][] = [
    ['{{', 'template: answer:1: unclosed action'],
    ['{{ .Name', 'template: answer:1: unclosed action'],
    ['a\n{{ nope }}', 'template: answer:2: function "nope" not defined'],
    ['{{ range .Match }}{{ end }}', "template: answer:1: {{ range }} is not supported by Foghorn's template engine"],
    ['{{ with .Name }}{{ end }}', "template: answer:1: {{ with }} is not supported by Foghorn's template engine"],
    ['{{ eq .Name "x" }}', 'template: answer:1: function "eq" is not supported by Foghorn\'s template engine'],
    ['{{ "unterminated }}', 'template: answer:1: unterminated quoted string'],
    ['{{ 3 .Name }}', "template: answer:1: can't give argument to non-function 3"],
    ['{{ }}', 'template: answer:1: missing value for command'],
  ];
  for (const [text, message] of errors) {
    assert.throws(() => GoTemplate.compile('answer', text), (e: Error) => e instanceof TemplateError && e.message === message, text);
  }
});
