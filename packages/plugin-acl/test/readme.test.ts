import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import acl from '@foghorn/plugin-acl';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'acl',
  directives: directivesOf(bind, acl),
  sections: ['Metrics'],
  minExamples: 7,
  metrics: { corefile: '.:0 {\n bind 127.0.0.1\n acl {\n  block\n }\n}\n' },
});
