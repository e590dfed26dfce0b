import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import rrl from '@foghorn/plugin-rrl';
import file from '@foghorn/plugin-file';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'rrl',
  directives: directivesOf(bind, rrl, file, forward),
  sections: ['Metrics'],
  minExamples: 3,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n rrl {\n  responses-per-second 10\n }\n}\n' },
});
