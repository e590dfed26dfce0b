import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import hosts from '@foghorn/plugin-hosts';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'hosts', directives: directivesOf(bind, hosts, whoami), sections: ['Metrics'], minExamples: 5, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n hosts {\n  192.0.2.1 a.example.\n }\n whoami\n}\n' } });
