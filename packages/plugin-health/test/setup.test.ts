import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import health, { parseHealth } from '../src/index.js';
import type { HealthOptions } from '../src/index.js';

const good: GoodCase<HealthOptions>[] = [
  { input: '    health', want: { address: ':8080', lameduckMs: 0 } },
  { input: '    health localhost:8091', want: { address: 'localhost:8091', lameduckMs: 0 } },
  { input: '    health 127.0.0.1:0', want: { address: '127.0.0.1:0', lameduckMs: 0 } },
  { input: '    health [::1]:8080', want: { address: '[::1]:8080', lameduckMs: 0 } },
  { input: '    health :8092 {\n        lameduck 1s\n    }', want: { address: ':8092', lameduckMs: 1000 } },
  { input: '    health {\n        lameduck 1.5s\n    }', want: { address: ':8080', lameduckMs: 1500 } },
  // Repeats are allowed and the last values win (CoreDNS's parse loop).
  { input: '    health :8081\n    health :8082', want: { address: ':8082', lameduckMs: 0 } },
  { input: '    health :8081 {\n        lameduck 1s\n    }\n    health :8082', want: { address: ':8082', lameduckMs: 1000 } },
];

const bad: BadCase[] = [
  { input: '    health foo', error: 'Corefile:2:12 - Error during parsing: address foo: missing port in address' },
  { input: '    health ::1:80', error: 'Corefile:2:12 - Error during parsing: address ::1:80: too many colons in address' },
  { input: '    health [::1]', error: 'Corefile:2:12 - Error during parsing: address [::1]: missing port in address' },
  { input: '    health :80 :81', error: "Corefile:2:16 - Error during parsing: Wrong argument count or unexpected line ending after ':81'" },
  { input: '    health {\n        lameduck\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'lameduck'" },
  { input: '    health {\n        lameduck 1s 2s\n    }', error: "Corefile:3:21 - Error during parsing: Wrong argument count or unexpected line ending after '2s'" },
  {
    input: '    health {\n        lameduck x\n    }',
    error: `Corefile:3:18 - Error during parsing: unable to parse lameduck duration value: 'x' : time: invalid duration "x"`,
  },
  { input: '    health {\n        lameduck 5\n    }', error: `Corefile:3:18 - Error during parsing: unable to parse lameduck duration value: '5' : time: missing unit in duration "5"` },
  { input: '    health {\n        foo\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'foo'" },
];

setupTable('health', parseHealth, { good, bad, plugin: health });
