import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'forward',
  directives: directivesOf(bind, cache, forward),
  sections: ['Metrics'],
  minExamples: 7,
  // Nothing is queried, so the unreachable upstream is never asked.
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n forward . 127.0.0.1:9\n}\n' },
});
