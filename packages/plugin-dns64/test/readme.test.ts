import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import dns64 from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'dns64', directives: directivesOf(dns64, forward), sections: ['Metrics'], minExamples: 4, metrics: { corefile: '.:0 {\n dns64\n}\n' } });
