import { setupTable } from '@foghorn/testkit';
import any, { parseAny } from '../src/index.js';

// CoreDNS's plugin/any/setup_test.go, with the positions Foghorn adds.
setupTable('any', parseAny, {
  plugin: any,
  good: [{ input: 'any', want: undefined }],
  bad: [
    { input: 'any example.org', error: "Corefile:2:5 - Error during parsing: Wrong argument count or unexpected line ending after 'example.org'" },
    { input: 'any { foo }', error: "Corefile:2:7 - Error during parsing: unknown property 'foo'" },
    { input: 'any {\n    foo bar\n}', error: "Corefile:3:5 - Error during parsing: unknown property 'foo'" },
  ],
});
