import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import root from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'root', directives: directivesOf(root, whoami), metrics: { corefile: '.:0 {\n root .\n whoami\n}\n' } });
