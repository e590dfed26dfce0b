import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import pprof, { parsePprof } from '../src/index.js';
import type { PprofOptions } from '../src/index.js';

/** CoreDNS's plugin/pprof/setup_test.go TestPProf, with the options and the positions of the errors. */
const good: GoodCase<PprofOptions>[] = [
  { input: '    pprof', want: { address: 'localhost:6053', blockRate: 0 } },
  { input: '    pprof 1.2.3.4:1234', want: { address: '1.2.3.4:1234', blockRate: 0 } },
  { input: '    pprof :1234', want: { address: ':1234', blockRate: 0 } },
  { input: '    pprof {\n    }', want: { address: 'localhost:6053', blockRate: 0 } },
  { input: '    pprof {\n        block\n    }', want: { address: 'localhost:6053', blockRate: 1 } },
  { input: '    pprof :1234 {\n        block 20\n    }', want: { address: ':1234', blockRate: 20 } },
];

const bad: BadCase[] = [
  { input: '    pprof :1234 -1', error: "Corefile:2:17 - Error during parsing: Wrong argument count or unexpected line ending after '-1'" },
  { input: '    pprof /foo', error: 'Corefile:2:11 - Error during parsing: address /foo: missing port in address' },
  { input: '    pprof {\n        a b\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'a'" },
  { input: '    pprof {\n        block 20 30\n    }', error: "Corefile:3:18 - Error during parsing: Wrong argument count or unexpected line ending after '30'" },
  { input: '    pprof {\n        block invalid\n    }', error: "Corefile:3:15 - Error during parsing: property 'block' invalid integer value 'invalid'" },
  { input: '    pprof {\n        unknown_property\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'unknown_property'" },
  { input: '    pprof\n    pprof', error: 'Corefile:3:5 - Error during parsing: this plugin can only be used once per Server Block' },
];

setupTable('pprof', parsePprof, { good, bad, plugin: pprof });
