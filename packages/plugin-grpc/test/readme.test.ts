import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import cache from '@foghorn/plugin-cache';
import forward from '@foghorn/plugin-forward';
import grpc from '@foghorn/plugin-grpc';
import whoami from '@foghorn/plugin-whoami';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'grpc',
  directives: directivesOf(bind, cache, forward, grpc, whoami),
  sections: ['Metrics'],
  minExamples: 6,
  // Nothing is queried, so the unreachable upstream is never asked.
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n grpc . 127.0.0.1:9\n}\n' },
});
