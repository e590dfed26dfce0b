import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import on from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'on', directives: directivesOf(whoami, on), minExamples: 2, metrics: { corefile: '.:0 {\n whoami\n on shutdown true\n}\n' } });
