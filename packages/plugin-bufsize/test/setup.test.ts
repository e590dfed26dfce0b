import { setupTable } from '@foghorn/testkit';
import bufsize, { parseBufsize } from '../src/index.js';

// CoreDNS's plugin/bufsize/setup_test.go, with the positions Foghorn adds.
const argError = (line: number, column: number, after: string): string => `Corefile:${line}:${column} - Error during parsing: Wrong argument count or unexpected line ending after '${after}'`;

setupTable('bufsize', parseBufsize, {
  plugin: bufsize,
  good: [
    { input: 'bufsize', want: 1232 },
    { input: 'bufsize "1220"', want: 1220 },
    { input: 'bufsize 512', want: 512 },
    { input: 'bufsize 4096', want: 4096 },
    { input: 'bufsize +1100', want: 1100 },
    { input: 'bufsize 1100\nbufsize 2000', want: 1100 },
  ],
  bad: [
    { input: 'bufsize "5000"', error: argError(2, 9, '5000') },
    { input: 'bufsize "512 512"', error: argError(2, 9, '512 512') },
    { input: 'bufsize "511"', error: argError(2, 9, '511') },
    { input: 'bufsize "abc123"', error: argError(2, 9, 'abc123') },
    { input: 'bufsize 4097', error: argError(2, 9, '4097') },
    { input: 'bufsize 1232 1232', error: argError(2, 14, '1232') },
    { input: 'bufsize 0x400', error: argError(2, 9, '0x400') },
  ],
});
