import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'whoami',
  directives: directivesOf(bind, whoami),
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n whoami\n}\n' },
});
