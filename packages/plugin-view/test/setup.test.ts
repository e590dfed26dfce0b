import { setupTable } from '@foghorn/testkit';
import type { Controller } from '@foghorn/core';
import view, { parseView } from '../src/index.js';

/** What a parse gives, without the compiled closures: the name and each expression's text and type. */
const parsed = (c: Controller): { name: string; expressions: string[] } => {
  const options = parseView(c);
  return { name: options.name, expressions: options.expressions.map((e) => `${e.source} : ${e.type}`) };
};

const at = (line: number, column: number, message: string): string => `Corefile:${line}:${column} - Error during parsing: ${message}`;

// CoreDNS's plugin/view/setup_test.go, then expressions outside the subset and other errors,
// each pinned to its line and column in the Corefile.
setupTable('view', parsed, {
  plugin: view,
  good: [
    { input: "view example {\n expr name() == 'example.com.'\n}", want: { name: 'example', expressions: ["name() == 'example.com.' : bool"] } },
    { input: "view example {\n expr incidr(client_ip(), '10.0.0.0/24')\n}", want: { name: 'example', expressions: ["incidr(client_ip(), '10.0.0.0/24') : bool"] } },
    {
      input: "view example {\n expr name() == 'example.com.'\n expr name() == 'example2.com.'\n}",
      want: { name: 'example', expressions: ["name() == 'example.com.' : bool", "name() == 'example2.com.' : bool"] },
    },
    { input: 'view empty', want: { name: 'empty', expressions: [] } },
    { input: "view t {\n expr type() in ['A', 'AAAA']\n}", want: { name: 't', expressions: ["type() in ['A', 'AAAA'] : bool"] } },
    // The README's regex example: the Corefile keeps the backslashes, expr's string unescapes them.
    { input: "view t {\n expr name() matches '^abc\\\\..*\\\\.example\\\\.com\\\\.$'\n}", want: { name: 't', expressions: ["name() matches '^abc\\\\..*\\\\.example\\\\.com\\\\.$' : bool"] } },
    {
      input: "view t {\n expr (type() == 'A' && name() == 'example.com.') || client_ip() == '1.2.3.4'\n}",
      want: { name: 't', expressions: ["(type() == 'A' && name() == 'example.com.') || client_ip() == '1.2.3.4' : bool"] },
    },
    { input: "view t {\n expr not (proto() == 'tcp') and size() > 512 and bufsize() >= 1232\n}", want: { name: 't', expressions: ["not (proto() == 'tcp') and size() > 512 and bufsize() >= 1232 : bool"] } },
    { input: "view t {\n expr metadata('kubernetes/namespace') not in ['kube-system', 'default']\n}", want: { name: 't', expressions: ["metadata('kubernetes/namespace') not in ['kube-system', 'default'] : bool"] } },
    { input: 'view t {\n expr id() % 2 == 0 ? do() : opcode() == 0\n}', want: { name: 't', expressions: ['id() % 2 == 0 ? do() : opcode() == 0 : bool'] } },
    // CoreDNS accepts expressions that are not boolean; they never select the block.
    { input: 'view t {\n expr 1\n}', want: { name: 't', expressions: ['1 : int'] } },
    { input: "view t {\n expr server_ip() + ':' + server_port() == '127.0.0.1:53'\n}", want: { name: 't', expressions: ["server_ip() + ':' + server_port() == '127.0.0.1:53' : bool"] } },
  ],
  bad: [
    { input: 'view', error: at(2, 1, "Wrong argument count or unexpected line ending after 'view'") },
    { input: 'view a b', error: at(2, 8, "Wrong argument count or unexpected line ending after 'b'") },
    { input: 'view example {\n expr invalid expression\n}', error: at(3, 7, 'unknown name invalid') },
    { input: 'view x {\n foo bar\n}\n', error: at(3, 2, "unknown property 'foo'") },
    { input: 'view a { }\nview b { }\n', error: at(3, 1, 'this plugin can only be used once per Server Block') },
    { input: "view t {\n expr name() == 1\n}", error: at(3, 14, 'invalid operation: == (mismatched types string and int)') },
    { input: "view t {\n expr port() == 53\n}", error: at(3, 14, 'invalid operation: == (mismatched types string and int)') },
    { input: "view t {\n expr incidr(client_ip())\n}", error: at(3, 7, 'not enough arguments to call incidr') },
    { input: "view t {\n expr incidr(client_ip(), 10)\n}", error: at(3, 27, 'cannot use int as argument (type string) to call incidr') },
    { input: "view t {\n expr incidr(client_ip(), '10.0.0.0/33')\n}", error: at(3, 7, 'invalid CIDR address: 10.0.0.0/33') },
    { input: "view t {\n expr lower(name()) == 'a.'\n}", error: at(3, 7, 'the builtin lower() is not supported in view expressions') },
    { input: "view t {\n expr nope() == 'a.'\n}", error: at(3, 7, 'unknown func nope') },
    { input: "view t {\n expr name == 'a.'\n}", error: at(3, 7, "'name' is a function: call it as name()") },
    { input: "view t {\n expr name() | lower()\n}", error: at(3, 14, 'the pipe operator (|) is not supported in view expressions') },
    { input: "view t {\n expr name()[0] == 'a'\n}", error: at(3, 13, 'indexing and slicing ([) is not supported in view expressions') },
    { input: "view t {\n expr name() matches '('\n}", error: at(3, 14, 'error parsing regexp: ') },
    { input: "view t {\n expr name() == 'a.' &&\n}", error: at(3, 24, 'unexpected end of expression') },
    { input: "view t {\n expr (name() == 'a.'\n}", error: at(3, 22, 'unexpected end of expression') },
    { input: "view t {\n expr name() == 'a.\n}", error: at(3, 17, 'literal not terminated') },
    { input: "view t {\n expr !name()\n}", error: at(3, 7, 'invalid operation: not (mismatched type string)') },
    { input: "view t {\n expr type() in 'A'\n}", error: at(3, 14, 'invalid operation: in (mismatched types string and string)') },
    { input: "view t {\n expr size() in ['A']\n}", error: at(3, 14, 'cannot use int as type string in array') },
    // A token of the Corefile line is joined to the next with one space; the column counts within it.
    { input: "view t {\n expr type() == 'A'   &&   size() >< 5\n}", error: at(3, 36, 'unexpected token Operator("<")') },
  ],
});
