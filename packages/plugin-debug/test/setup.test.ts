import { setupTable } from '@foghorn/testkit';
import debug, { parseDebug } from '../src/index.js';

// CoreDNS's plugin/debug/debug_test.go.
setupTable('debug', parseDebug, {
  plugin: debug,
  good: [
    { input: 'debug', want: true },
    { input: 'debug\ndebug', want: true },
  ],
  bad: [
    { input: 'debug off', error: "Corefile:2:7 - Error during parsing: Wrong argument count or unexpected line ending after 'off'" },
    { input: 'debug {\n  off\n}', error: "Corefile:3:3 - Error during parsing: unknown property 'off'" },
  ],
});
