import { setupTable } from '@foghorn/testkit';
import whoami from '../src/index.js';
import { parseWhoami } from '../src/setup.js';

setupTable('whoami', parseWhoami, {
  good: [
    { input: 'whoami', want: true },
    { input: 'whoami\nwhoami', want: true },
  ],
  bad: [
    { input: 'whoami extra', error: "Corefile:2:8 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'" },
    { input: 'whoami\nwhoami a b', error: "Corefile:3:8 - Error during parsing: Wrong argument count or unexpected line ending after 'a'" },
  ],
  plugin: whoami,
});
