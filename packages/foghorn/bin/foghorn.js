#!/usr/bin/env node
// The `foghorn` command. This file is committed, not built, so that `npm ci` links the command
// on a fresh clone: npm links a bin only if its target exists at install time, and dist/ does
// not exist until `npm run build`.
try {
  await import('../dist/src/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/src/cli.js')) throw error;
  process.stderr.write('foghorn is not built yet: run `npm run build` in the repository first\n');
  process.exit(1);
}
