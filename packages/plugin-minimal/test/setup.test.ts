import { setupTable } from '@foghorn/testkit';
import minimal, { parseMinimal } from '../src/index.js';

// CoreDNS v1.14.7's plugin/minimal/setup_test.go, with the positions Foghorn adds.
setupTable('minimal', parseMinimal, {
  plugin: minimal,
  good: [
    { input: 'minimal', want: undefined },
    { input: 'minimal\nminimal', want: undefined },
  ],
  bad: [
    { input: 'minimal example.org', error: "Corefile:2:9 - Error during parsing: Wrong argument count or unexpected line ending after 'example.org'" },
    { input: 'minimal {\n}', error: "Corefile:2:9 - Error during parsing: Unexpected token '{', expecting argument" },
    { input: 'minimal {\n    foo\n}', error: "Corefile:2:9 - Error during parsing: Unexpected token '{', expecting argument" },
  ],
});
