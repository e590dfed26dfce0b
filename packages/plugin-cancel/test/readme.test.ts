import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import cancel from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'cancel', directives: directivesOf(cancel, whoami), minExamples: 2, metrics: { corefile: '.:0 {\n cancel\n whoami\n}\n' } });
