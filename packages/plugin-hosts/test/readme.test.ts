import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import hosts from '@foghorn/plugin-hosts';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'hosts', directives: directivesOf(bind, hosts, whoami), sections: ['Metrics'], minExamples: 5 });
