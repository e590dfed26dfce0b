import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import forward from '@foghorn/plugin-forward';
import loop from '@foghorn/plugin-loop';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'loop', directives: directivesOf(bind, loop, forward, whoami), minExamples: 2, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n loop\n whoami\n}\n' } });
