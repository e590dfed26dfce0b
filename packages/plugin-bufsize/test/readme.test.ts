import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import log from '@foghorn/plugin-log';
import whoami from '@foghorn/plugin-whoami';
import bufsize from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'bufsize', directives: directivesOf(bufsize, log, forward, whoami), minExamples: 2, metrics: { corefile: '.:0 {\n bufsize\n whoami\n}\n' } });
