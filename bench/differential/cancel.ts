/**
 * cancel: forward through it to an upstream that answers, and to one that never does (SERVFAIL in
 * both: Foghorn at the deadline, CoreDNS when its 2 s read timeout ends the attempt in flight).
 */
import { answering, silent, startUpstream } from '@foghorn/testkit';
import type { DifferentialCase } from './case.js';

const cases: DifferentialCase[] = [
  {
    plugin: 'cancel',
    name: 'cancel with forward',
    corefile:
      'example.org:{port} {\n  bind 127.0.0.1\n  cancel 500ms\n  forward . {answering} {\n    max_fails 0\n  }\n}\n' +
      'example.net:{port} {\n  bind 127.0.0.1\n  cancel 500ms\n  forward . {silent} {\n    max_fails 0\n  }\n}\n',
    queries: [
      { name: 'www.example.org.', type: 'A' },
      { name: 'www.example.org.', type: 'A', transport: 'tcp' },
      { name: 'www.example.net.', type: 'A' },
    ],
    async setup() {
      const up = await startUpstream(answering);
      const dead = await startUpstream(silent);
      return {
        vars: { answering: up.address, silent: dead.address },
        async close() {
          await up.close();
          await dead.close();
        },
      };
    },
  },
];
export default cases;
