import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import template from '@foghorn/plugin-template';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'template', directives: directivesOf(template, forward), sections: ['Templates', 'Metrics'], minExamples: 10, metrics: { corefile: '.:0 {\n template IN A example.org {\n  answer "{{ .Name }} 60 IN A 192.0.2.1"\n }\n}\n' } });
