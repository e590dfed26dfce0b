import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import chaos from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'chaos', directives: directivesOf(chaos), minExamples: 2, metrics: { corefile: '.:0 {\n chaos\n}\n' } });
