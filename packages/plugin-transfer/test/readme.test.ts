import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import acl from '@foghorn/plugin-acl';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'transfer', directives: directivesOf(acl, transfer), minExamples: 2, metrics: { corefile: 'example.org:0 {\n transfer {\n  to *\n }\n}\n' } });
