import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import cache from '@foghorn/plugin-cache';
import forward from '@foghorn/plugin-forward';
import loadbalance from '@foghorn/plugin-loadbalance';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'loadbalance', directives: directivesOf(bind, loadbalance, cache, forward, whoami), minExamples: 3, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n loadbalance\n whoami\n}\n' } });
