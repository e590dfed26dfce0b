/**
 * A templated answer: the README's hexadecimal-IP template, so each query runs the regex, renders
 * `{{ .Name }}` and three `parseInt` calls, and parses the record text.
 */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn template (regex + parseInt, A answer)',
  targetRatio: 0.5,
  setup: () =>
    Promise.resolve({
      corefile: [
        '.:0 {',
        '    bind 127.0.0.1',
        '    template IN A example {',
        '        match "^ip0a(?P<b>[a-f0-9]{2})(?P<c>[a-f0-9]{2})(?P<d>[a-f0-9]{2})[.]example[.]$"',
        '        answer "{{ .Name }} 60 IN A 10.{{ parseInt .Group.b 16 8 }}.{{ parseInt .Group.c 16 8 }}.{{ parseInt .Group.d 16 8 }}"',
        '    }',
        '}',
        '',
      ].join('\n'),
      queryName: 'ip0a5f0c09.example',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
