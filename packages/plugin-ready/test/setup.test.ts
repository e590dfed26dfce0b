import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import ready, { parseReady } from '../src/index.js';
import type { ReadyOptions } from '../src/index.js';

const good: GoodCase<ReadyOptions>[] = [
  { input: '    ready', want: { address: ':8181', monitor: 'until-ready' } },
  { input: '    ready localhost:8091', want: { address: 'localhost:8091', monitor: 'until-ready' } },
  { input: '    ready 127.0.0.1:0', want: { address: '127.0.0.1:0', monitor: 'until-ready' } },
  { input: '    ready {\n        monitor continuously\n    }', want: { address: ':8181', monitor: 'continuously' } },
  { input: '    ready :8182 {\n        monitor until-ready\n    }', want: { address: ':8182', monitor: 'until-ready' } },
];

const bad: BadCase[] = [
  { input: '    ready foo', error: 'Corefile:2:11 - Error during parsing: address foo: missing port in address' },
  { input: '    ready :80 :81', error: "Corefile:2:15 - Error during parsing: Wrong argument count or unexpected line ending after ':81'" },
  { input: '    ready\n    ready', error: 'Corefile:3:5 - Error during parsing: this plugin can only be used once per Server Block' },
  { input: '    ready {\n        monitor\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'monitor'" },
  { input: '    ready {\n        monitor a b\n    }', error: "Corefile:3:19 - Error during parsing: Wrong argument count or unexpected line ending after 'b'" },
  { input: '    ready {\n        monitor sometimes\n    }', error: "Corefile:3:17 - Error during parsing: monitor type 'sometimes' not supported" },
  { input: '    ready {\n        foo\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'foo'" },
];

setupTable('ready', parseReady, { good, bad, plugin: ready });
