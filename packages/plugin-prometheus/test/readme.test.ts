import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import whoami from '@foghorn/plugin-whoami';
import prometheus from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'prometheus', directives: directivesOf(prometheus, whoami), sections: ['Metrics'], minExamples: 3, env: { METRICS: '9153' } });
