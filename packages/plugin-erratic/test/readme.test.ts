import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import erratic from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'erratic', directives: directivesOf(erratic), sections: ['Ready'], minExamples: 5, metrics: { corefile: '.:0 {\n erratic\n}\n' } });
