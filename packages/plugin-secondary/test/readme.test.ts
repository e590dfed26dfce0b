import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import transfer from '@foghorn/plugin-transfer';
import secondary from '@foghorn/plugin-secondary';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'secondary', directives: directivesOf(transfer, secondary, forward), sections: ['Metrics'], minExamples: 3, metrics: { corefile: 'example.org:0 {\n secondary {\n  transfer from 127.0.0.1:1\n }\n}\n' } });
