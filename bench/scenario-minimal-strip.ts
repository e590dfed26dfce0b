/**
 * minimal in front of template answering as an authoritative server does (answer, NS in
 * authority, glue in additional): every reply is cut to its answer section. The variant without
 * minimal sends the whole reply, so the ratio is what cutting costs less what the smaller reply
 * saves in encoding.
 */
import type { BenchScenario } from './scenario.js';

const template = [
  '    template IN A example.org {',
  '        answer "{{ .Name }} 60 IN A 192.0.2.1"',
  '        authority "example.org. 3600 IN NS ns1.example.org."',
  '        authority "example.org. 3600 IN NS ns2.example.org."',
  '        additional "ns1.example.org. 3600 IN A 192.0.2.53"',
  '        additional "ns2.example.org. 3600 IN A 192.0.2.54"',
  '    }',
].join('\n');

const scenario: BenchScenario = {
  title: 'foghorn minimal + template (authority and additional cut)',
  targetRatio: 0.5,
  setup: () =>
    Promise.resolve({
      corefile: `.:0 {\n    bind 127.0.0.1\n    minimal\n${template}\n}\n`,
      variants: [{ label: 'without minimal', corefile: `.:0 {\n    bind 127.0.0.1\n${template}\n}\n` }],
      queryName: 'www.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
