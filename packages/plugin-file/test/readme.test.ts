import { checkPluginReadme, directivesOf } from '@foghorn/testkit';
import file from '@foghorn/plugin-file';
import transfer from '@foghorn/plugin-transfer';
import forward from '@foghorn/plugin-forward';

checkPluginReadme(new URL('../../README.md', import.meta.url), { name: 'file', directives: directivesOf(transfer, file, forward), minExamples: 5, metrics: { corefile: 'example.org:0 {\n file /nonexistent/db.example.org\n}\n' } });
