import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import pprof from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'pprof',
  directives: directivesOf(bind, pprof, whoami),
  minExamples: 2,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n pprof 127.0.0.1:0\n whoami\n}\n' },
});
