import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import hosts from '@foghorn/plugin-hosts';
import metadata from '@foghorn/plugin-metadata';
import whoami from '@foghorn/plugin-whoami';
import view from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'view',
  directives: directivesOf(metadata, hosts, forward, whoami, view),
  sections: ['Server Block Ordering', 'Expressions', 'Metadata', 'Metrics'],
  minExamples: 3,
  metrics: { corefile: ".:0 {\n view v {\n  expr type() == 'A'\n }\n whoami\n}\n" },
});
