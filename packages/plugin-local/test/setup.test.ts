import { setupTable } from '@foghorn/testkit';
import local, { parseLocal } from '../src/index.js';

// CoreDNS v1.14.7's plugin/local/setup_test.go, with the positions Foghorn adds.
setupTable('local', parseLocal, {
  plugin: local,
  good: [
    { input: 'local', want: { localhostPrefix: true } },
    { input: 'local {\n    localhost_prefix off\n}', want: { localhostPrefix: false } },
    { input: 'local {\n    localhost_prefix on\n}', want: { localhostPrefix: true } },
    { input: 'local {\n    localhost_prefix off\n    localhost_prefix on\n}', want: { localhostPrefix: true } },
    { input: 'local\nlocal {\n    localhost_prefix off\n}', want: { localhostPrefix: false } },
  ],
  bad: [
    { input: 'local example.org', error: "Corefile:2:7 - Error during parsing: Wrong argument count or unexpected line ending after 'example.org'" },
    { input: 'local { foo }', error: "Corefile:2:9 - Error during parsing: unknown property 'foo'" },
    { input: 'local {\n    localhost_prefix maybe\n}', error: `Corefile:3:22 - Error during parsing: localhost_prefix expects 'on' or 'off', got "maybe"` },
    { input: 'local {\n    localhost_prefix\n}', error: "Corefile:3:5 - Error during parsing: Wrong argument count or unexpected line ending after 'localhost_prefix'" },
    { input: 'local {\n    localhost_prefix on off\n}', error: "Corefile:3:25 - Error during parsing: Wrong argument count or unexpected line ending after 'off'" },
  ],
});
