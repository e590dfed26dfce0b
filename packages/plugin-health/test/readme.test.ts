import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import health from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'health',
  directives: directivesOf(bind, health, whoami),
  sections: ['Metrics'],
  minExamples: 2,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n health 127.0.0.1:0\n whoami\n}\n' },
});
