/**
 * A server whose descriptors something else has nearly used up, for test/lockout.test.ts:
 * `node descriptor-hog.js PORT FREE` serves whoami on 127.0.0.1:PORT (UDP and TCP), then opens
 * /dev/null until only FREE descriptors are left under the soft limit, as forward's upstream
 * sockets or a plugin's files could, and prints `ready`. Start it under a low `ulimit -n`.
 */
import { openSync, readdirSync } from 'node:fs';
import { descriptorLimit } from '@foghorn/core/server';
import { createServer } from 'foghorn';

const [port = '0', free = '40'] = process.argv.slice(2);
const server = createServer({ directives: ['bind', 'whoami'], corefile: `.:${port} {\n    bind 127.0.0.1\n    whoami\n}\n` });
await server.start();
const soft = descriptorLimit()?.soft ?? 1024;
// Reading the directory takes a descriptor of its own while it runs.
const open = readdirSync('/proc/self/fd').length - 1;
for (let i = open; i < soft - Number(free); i++) openSync('/dev/null', 'r');
console.log('ready');
process.on('SIGTERM', () => void server.stop({ graceful: false }).then(() => process.exit(0)));
