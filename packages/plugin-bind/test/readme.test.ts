import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'bind',
  directives: directivesOf(bind),
  minExamples: 2,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n}\n' },
});
