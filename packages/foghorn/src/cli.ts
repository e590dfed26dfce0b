#!/usr/bin/env node
// The `foghorn` command: see main.ts.
import { main } from './main.js';

await main(process.argv.slice(2));
