import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import minimal from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'minimal', directives: directivesOf(minimal, forward, whoami), metrics: { corefile: '.:0 {\n minimal\n whoami\n}\n' } });
