import { setupTable } from '@foghorn/testkit';
import on, { parseOn } from '../src/index.js';

const at = (column: number, message: string): string => `Corefile:2:${column} - Error during parsing: ${message}`;

// caddy's onevent/on_test.go (TestSetup, TestCommandParse), and the word splitting of its
// SplitCommandAndArgs.
setupTable('on', parseOn, {
  plugin: on,
  good: [
    { input: 'on startup cmd arg1 arg2', want: [{ event: 'startup', command: 'cmd', args: ['arg1', 'arg2'], background: false }] },
    { input: 'on shutdown cmd arg1 arg2 &', want: [{ event: 'shutdown', command: 'cmd', args: ['arg1', 'arg2'], background: true }] },
    { input: 'on certrenew cmd arg1 arg2', want: [{ event: 'certrenew', command: 'cmd', args: ['arg1', 'arg2'], background: false }] },
    { input: 'on StartUp cmd', want: [{ event: 'startup', command: 'cmd', args: [], background: false }] },
    {
      input: 'on startup touch /tmp/a\non shutdown rm /tmp/a',
      want: [
        { event: 'startup', command: 'touch', args: ['/tmp/a'], background: false },
        { event: 'shutdown', command: 'rm', args: ['/tmp/a'], background: false },
      ],
    },
    // Single quotes are plain characters to the Corefile, and group words for the command.
    { input: "on startup sh -c 'echo a b > /tmp/x'", want: [{ event: 'startup', command: 'sh', args: ['-c', 'echo a b > /tmp/x'], background: false }] },
    // The Corefile's double quotes group a token, but caddy joins the tokens and splits them again.
    { input: 'on startup "/bin/echo hello"', want: [{ event: 'startup', command: '/bin/echo', args: ['hello'], background: false }] },
    { input: 'on startup sh -c "echo a b"', want: [{ event: 'startup', command: 'sh', args: ['-c', 'echo', 'a', 'b'], background: false }] },
    { input: String.raw`on startup echo a\ b "\"q\""`, want: [{ event: 'startup', command: 'echo', args: ['a b', 'q'], background: false }] },
  ],
  bad: [
    { input: 'on', error: at(1, "Wrong argument count or unexpected line ending after 'on'") },
    { input: 'on xyz cmd arg', error: at(4, "Wrong event name or event not supported: 'xyz'") },
    { input: 'on startup', error: at(4, "no command contained in ''") },
    { input: "on startup sh -c 'echo", error: at(18, 'error parsing command: EOF found when expecting closing quote.') },
    { input: 'on startup echo `date`', error: at(17, 'error parsing command: Unknown rune: 96') },
    { input: 'on startup echo dé', error: at(17, 'error parsing command: Uknown rune: 233') },
  ],
});
