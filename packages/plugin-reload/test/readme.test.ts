import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import reload from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'reload',
  directives: directivesOf(reload, bind, whoami),
  sections: ['Metrics'],
  minExamples: 2,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n reload\n whoami\n}\n' },
});
