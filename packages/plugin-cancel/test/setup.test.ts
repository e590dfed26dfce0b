import { setupTable } from '@foghorn/testkit';
import cancel, { parseCancel } from '../src/index.js';

// CoreDNS's plugin/cancel/setup_test.go, with the positions Foghorn adds.
setupTable('cancel', parseCancel, {
  plugin: cancel,
  good: [
    { input: 'cancel', want: 5001 },
    { input: 'cancel 5s', want: 5000 },
    { input: 'cancel 1.5s', want: 1500 },
    { input: 'cancel 100ms', want: 100 },
    { input: 'cancel 1s\ncancel 2s', want: 2000 },
    { input: 'cancel 1s\ncancel', want: 5001 },
  ],
  bad: [
    { input: 'cancel 5', error: 'Corefile:2:8 - Error during parsing: invalid duration: "5"' },
    { input: 'cancel -1s', error: 'Corefile:2:8 - Error during parsing: invalid negative duration: "-1s"' },
    { input: 'cancel 0', error: 'Corefile:2:8 - Error during parsing: invalid negative duration: "0"' },
    { input: 'cancel 1s 2s', error: "Corefile:2:11 - Error during parsing: Wrong argument count or unexpected line ending after '2s'" },
  ],
});
