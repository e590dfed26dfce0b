import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import header from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'header', directives: directivesOf(header, forward, whoami), minExamples: 3, metrics: { corefile: '.:0 {\n header {\n  response set ra\n }\n whoami\n}\n' } });
