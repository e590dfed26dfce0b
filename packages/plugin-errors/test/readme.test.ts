import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import errors from '@foghorn/plugin-errors';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'errors',
  directives: directivesOf(bind, errors, whoami),
  sections: ['Metrics'],
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n errors\n whoami\n}\n' },
});
