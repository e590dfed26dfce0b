import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import whoami from '@foghorn/plugin-whoami';
import dnstap from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'dnstap',
  directives: directivesOf(bind, dnstap, forward, whoami),
  sections: ['Metrics'],
  minExamples: 4,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n dnstap /nonexistent/dnstap.sock\n whoami\n}\n' },
});
