import { setupTable } from '@foghorn/testkit';
import erratic, { parseErratic } from '../src/index.js';
import type { ErraticOptions } from '../src/index.js';

const at = (line: number, column: number, message: string): string => `Corefile:${line}:${column} - Error during parsing: ${message}`;

// CoreDNS's plugin/erratic/setup_test.go (TestSetup and TestParseErratic), with positions.
setupTable<ErraticOptions>('erratic', parseErratic, {
  plugin: erratic,
  partial: true,
  good: [
    { input: 'erratic {\n    drop\n}', want: { drop: 2, delay: 0, truncate: 0 } },
    { input: 'erratic', want: { drop: 2, delay: 0, truncate: 0, delayMs: 0, large: false } },
    { input: 'erratic {\n    drop 2\n    delay 3 1ms\n\n}', want: { drop: 2, delay: 3, truncate: 0, delayMs: 1 } },
    { input: 'erratic {\n    truncate 2\n    delay 3 1ms\n\n}', want: { drop: 0, delay: 3, truncate: 2 } },
    { input: 'erratic {\n    drop 3\n    delay\n}', want: { drop: 3, delay: 2, truncate: 0, delayMs: 100 } },
    { input: 'erratic {\n    drop 3\n    truncate\n}', want: { drop: 3, delay: 0, truncate: 2 } },
    // A bare `drop` does not count as given: delay switches the default drop off.
    { input: 'erratic {\n    drop\n    delay 3 50ms\n}', want: { drop: 0, delay: 3, delayMs: 50 } },
    { input: 'erratic {\n    drop 0\n    truncate 5\n}', want: { drop: 0, truncate: 5 } },
    { input: 'erratic {\n    large\n}', want: { drop: 2, large: true } },
    { input: 'erratic {\n    drop 3\n}\nerratic {\n    delay 2 5ms\n}', want: { drop: 3, delay: 2, delayMs: 5 } },
  ],
  bad: [
    { input: 'erratic {\n    drop -1\n}', error: at(3, 10, 'illegal amount value given "-1"') },
    { input: 'erratic {\n    delay -1\n}', error: at(3, 11, 'illegal amount value given "-1"') },
    { input: 'erratic {\n    delay 1 2 4\n}', error: at(3, 15, "Wrong argument count or unexpected line ending after '4'") },
    { input: 'erratic {\n    delay 15.a\n}', error: at(3, 11, 'strconv.ParseInt: parsing "15.a": invalid syntax') },
    { input: 'erratic {\n    drop 3\n    delay 3 bla\n}', error: at(4, 13, 'time: invalid duration "bla"') },
    { input: 'erratic {\n    truncate 15.a\n}', error: at(3, 14, 'strconv.ParseInt: parsing "15.a": invalid syntax') },
    { input: 'erratic {\n    something-else\n}', error: at(3, 5, "unknown property 'something-else'") },
    { input: 'erratic {\n    drop 1 2\n}', error: at(3, 12, "Wrong argument count or unexpected line ending after '2'") },
    { input: 'erratic {\n    truncate 2147483648\n}', error: at(3, 14, 'strconv.ParseInt: parsing "2147483648": value out of range') },
  ],
});
