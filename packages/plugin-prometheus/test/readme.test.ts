import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import prometheus from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'prometheus',
  directives: directivesOf(bind, prometheus, whoami),
  sections: ['Metrics'],
  minExamples: 3,
  env: { METRICS: '9153' },
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n prometheus 127.0.0.1:0\n whoami\n}\n' },
});
