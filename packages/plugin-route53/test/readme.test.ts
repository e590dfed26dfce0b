import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import route53 from '@foghorn/plugin-route53';

// Without ZONE:ID pairs the plugin asks AWS nothing at startup.
checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'route53', directives: directivesOf(bind, route53), minExamples: 4, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n route53\n}\n' } });
