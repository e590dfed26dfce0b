import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import acl from '@foghorn/plugin-acl';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'acl', directives: directivesOf(acl), sections: ['Metrics'], minExamples: 7 });
