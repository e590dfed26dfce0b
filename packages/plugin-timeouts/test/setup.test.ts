import { setupTable } from '@foghorn/testkit';
import timeouts, { parseTimeouts } from '@foghorn/plugin-timeouts';

setupTable('timeouts', parseTimeouts, {
  plugin: timeouts,
  good: [
    { input: 'timeouts {\n read 10s\n write 20s\n idle 60s\n}', want: { readTimeoutMs: 10_000, writeTimeoutMs: 20_000, idleTimeoutMs: 60_000 } },
    { input: 'timeouts {\n read 1m\n}', want: { readTimeoutMs: 60_000 } },
    // durations.NewDurationFromArg: a bare integer is seconds.
    { input: 'timeouts {\n idle 30\n}', want: { idleTimeoutMs: 30_000 } },
    { input: 'timeouts {\n write 24h\n}', want: { writeTimeoutMs: 86_400_000 } },
    { input: 'timeouts {\n maxtcpqueries 128\n}', want: { maxQueries: 128 } },
    { input: 'timeouts {\n maxtcpqueries -1\n read 5s\n}', want: { maxQueries: -1, readTimeoutMs: 5_000 } },
  ],
  bad: [
    { input: 'timeouts 5s', error: "Corefile:2:10 - Error during parsing: Wrong argument count or unexpected line ending after '5s'" },
    { input: 'timeouts', error: 'Corefile:2:1 - Error during parsing: timeouts block with no timeouts specified' },
    { input: 'timeouts {\n}', error: 'Corefile:3:1 - Error during parsing: timeouts block with no timeouts specified' },
    { input: 'timeouts {\n read\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'read'" },
    { input: 'timeouts {\n read 1s 2s\n}', error: "Corefile:3:10 - Error during parsing: Wrong argument count or unexpected line ending after '2s'" },
    { input: 'timeouts {\n read 500ms\n}', error: "Corefile:3:7 - Error during parsing: timeout provided '500ms' needs to be between 1 second and 24 hours" },
    { input: 'timeouts {\n idle 25h\n}', error: "Corefile:3:7 - Error during parsing: timeout provided '25h0m0s' needs to be between 1 second and 24 hours" },
    { input: 'timeouts {\n write soon\n}', error: "Corefile:3:8 - Error during parsing: failed to parse duration 'soon'" },
    { input: 'timeouts {\n write 0\n}', error: "Corefile:3:8 - Error during parsing: timeout provided '0s' needs to be between 1 second and 24 hours" },
    { input: 'timeouts {\n dial 5s\n}', error: "Corefile:3:7 - Error during parsing: unknown option: 'dial'" },
    { input: 'timeouts {\n maxtcpqueries 0\n}', error: "Corefile:3:16 - Error during parsing: maxtcpqueries provided '0' needs to be -1 (unlimited) or a positive integer" },
    { input: 'timeouts {\n maxtcpqueries many\n}', error: `Corefile:3:16 - Error during parsing: invalid value for maxtcpqueries 'many': strconv.Atoi: parsing "many": invalid syntax` },
  ],
});
