import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import rewrite from '@foghorn/plugin-rewrite';
import whoami from '@foghorn/plugin-whoami';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'rewrite', directives: directivesOf(rewrite, whoami), minExamples: 11, metrics: { corefile: '.:0 {\n rewrite name exact a.example. b.example.\n whoami\n}\n' } });
