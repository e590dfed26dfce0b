/** header: flag rules on replies written as messages (template) and as wire bytes (forward). */
import { reply, rr, startUpstream } from '@foghorn/testkit';
import type { DifferentialCase } from './case.js';

const template = '  template IN A example.org {\n    answer "{{ .Name }} 60 IN A 192.0.2.1"\n  }\n';
const queries = [
  { name: 'a.example.org.', type: 'A' },
  { name: 'a.example.org.', type: 'A', rd: false },
  { name: 'a.example.org.', type: 'A', transport: 'tcp' },
  { name: 'a.example.org.', type: 'A', udpSize: 1232, do: true },
  // Nothing answers TXT: the server's SERVFAIL, which no rule touches.
  { name: 'a.example.org.', type: 'TXT' },
] as const;

const cases: DifferentialCase[] = [
  {
    plugin: 'header',
    name: 'header response rules (template)',
    corefile: `.:{port} {\n  bind 127.0.0.1\n  header {\n    response set ra aa\n    response clear rd\n  }\n${template}}\n`,
    queries,
  },
  {
    plugin: 'header',
    name: 'header query rules (template)',
    corefile: `.:{port} {\n  bind 127.0.0.1\n  header {\n    query clear rd\n    query set aa\n  }\n${template}}\n`,
    queries,
  },
  {
    plugin: 'header',
    name: 'header query set rd (template)',
    corefile: `.:{port} {\n  bind 127.0.0.1\n  header {\n    QUERY SET RD\n  }\n${template}}\n`,
    queries,
  },
  {
    plugin: 'header',
    name: 'header rules without a selector, as CoreDNS 1.12 reads them',
    corefile: `.:{port} {\n  bind 127.0.0.1\n  header {\n    set aa\n    clear rd\n  }\n${template}}\n`,
    queries,
  },
  {
    plugin: 'header',
    name: 'header rules on forwarded replies',
    corefile: '.:{port} {\n  bind 127.0.0.1\n  header {\n    response clear ra\n    response set aa\n    query clear rd\n  }\n  forward . {upstream}\n}\n',
    queries,
    async setup() {
      const upstream = await startUpstream((q) => {
        const question = q.questions[0]!;
        // RD echoed: the reply says whether header's query rule reached the upstream.
        if (question.type !== 'A') return [reply(q, { rcode: 3 })];
        return [reply(q, { answers: [rr(`${question.name}. 60 IN A 192.0.2.7`)] })];
      });
      return { vars: { upstream: upstream.address }, close: () => upstream.close() };
    },
  },
];
export default cases;
