import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'whoami', directives: directivesOf(whoami) });
