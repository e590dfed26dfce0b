import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import cache from '@foghorn/plugin-cache';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'cache',
  directives: directivesOf(bind, cache, whoami),
  sections: ['Metrics'],
  minExamples: 3,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n cache\n whoami\n}\n' },
});
