import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import log from '@foghorn/plugin-log';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'log',
  directives: directivesOf(bind, log, whoami),
  sections: ['Metrics'],
  minExamples: 4,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n log\n whoami\n}\n' },
});
