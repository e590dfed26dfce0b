import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import auto from '@foghorn/plugin-auto';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'auto', directives: directivesOf(transfer, auto), sections: ['Metrics'], minExamples: 3, metrics: { corefile: '.:0 {\n auto {\n  directory /nonexistent\n }\n}\n' } });
