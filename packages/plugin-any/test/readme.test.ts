import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import any from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'any', directives: directivesOf(any, whoami), metrics: { corefile: '.:0 {\n any\n whoami\n}\n' } });
