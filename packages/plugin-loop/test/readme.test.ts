import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import forward from '@foghorn/plugin-forward';
import loop from '@foghorn/plugin-loop';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'loop', directives: directivesOf(bind, loop, forward), minExamples: 2, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n loop\n forward . 127.0.0.1:9\n}\n' } });
