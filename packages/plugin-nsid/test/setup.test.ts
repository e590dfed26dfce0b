import { hostname } from 'node:os';
import { setupTable } from '@foghorn/testkit';
import nsid, { parseNsid } from '../src/index.js';

// CoreDNS's plugin/nsid/setup_test.go, with the positions Foghorn adds.
setupTable('nsid', parseNsid, {
  plugin: nsid,
  good: [
    { input: 'nsid', want: hostname() },
    { input: 'nsid "ps0"', want: 'ps0' },
    { input: 'nsid "worker1"', want: 'worker1' },
    { input: 'nsid "tf 2"', want: 'tf 2' },
    { input: 'nsid Use The Force', want: 'Use The Force' },
  ],
  bad: [
    { input: 'nsid\nnsid', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
    { input: 'nsid {\n  color red\n}', error: "Corefile:3:3 - Error during parsing: unknown property 'color'" },
  ],
});
