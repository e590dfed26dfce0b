import { setupTable } from '@foghorn/testkit';
import metadata, { parseMetadata } from '../src/index.js';

const argError = (line: number, column: number, after: string): string => `Corefile:${line}:${column} - Error during parsing: Wrong argument count or unexpected line ending after '${after}'`;

// CoreDNS's plugin/metadata/setup_test.go (its zones are the block's when none are given: here
// the block is example.org), with the positions Foghorn adds.
setupTable('metadata', parseMetadata, {
  plugin: metadata,
  good: [
    { input: 'metadata', want: ['example.org.'] },
    { input: 'metadata example.com.', want: ['example.com.'] },
    { input: 'metadata example.com. net.', want: ['example.com.', 'net.'] },
    { input: 'metadata Example.COM', want: ['example.com.'] },
    { input: 'metadata {\n}', want: ['example.org.'] },
  ],
  bad: [
    { input: 'metadata example.com. { some_param }', error: argError(2, 25, 'some_param') },
    { input: 'metadata\nmetadata', error: argError(3, 1, 'metadata') },
  ],
});
