import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import forward from '@foghorn/plugin-forward';
import kubernetes from '@foghorn/plugin-kubernetes';
import log from '@foghorn/plugin-log';
import rewrite from '@foghorn/plugin-rewrite';
import template from '@foghorn/plugin-template';
import whoami from '@foghorn/plugin-whoami';
import metadata from '../src/index.js';

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'metadata',
  directives: directivesOf(metadata, log, rewrite, template, kubernetes, forward, whoami),
  sections: ['Plugins', 'Metrics'],
  minExamples: 3,
  metrics: { corefile: '.:0 {\n metadata\n whoami\n}\n' },
});
