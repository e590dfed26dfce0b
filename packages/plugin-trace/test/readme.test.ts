import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import trace from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'trace',
  directives: directivesOf(bind, trace, whoami),
  minExamples: 2,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n trace 127.0.0.1:1\n whoami\n}\n' },
});
