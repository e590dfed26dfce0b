/**
 * A rewritten query: `rewrite name` with the README's regex and `answer name` rules in front of
 * whoami. Every measured query matches, so each is re-encoded once on the way in and its reply
 * copied, reverted (question restored, names mapped back) and encoded on the way out.
 */
import type { BenchScenario } from './scenario.js';

const scenario: BenchScenario = {
  title: 'foghorn rewrite (name regex + answer name, whoami)',
  targetRatio: 0.5,
  setup: () =>
    Promise.resolve({
      corefile: [
        '.:0 {',
        '    bind 127.0.0.1',
        '    rewrite stop {',
        '        name regex (.*)-(us-west-1)\\.example\\.org {1}.service.{2}.consul',
        '        answer name (.*)\\.service\\.(us-west-1)\\.consul {1}-{2}.example.org',
        '    }',
        '    whoami',
        '}',
        '',
      ].join('\n'),
      queryName: 'ftp-us-west-1.example.org',
      queryType: 'A',
      cleanup: () => Promise.resolve(),
    }),
};
export default scenario;
