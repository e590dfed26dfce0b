import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import template from '@foghorn/plugin-template';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'template', directives: directivesOf(template, forward), sections: ['Templates', 'Metrics'], minExamples: 10 });
