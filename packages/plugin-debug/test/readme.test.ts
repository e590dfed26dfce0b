import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import debug from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'debug', directives: directivesOf(debug, whoami), metrics: { corefile: '.:0 {\n debug\n whoami\n}\n' } });
