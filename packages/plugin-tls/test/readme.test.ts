import { after } from 'node:test';
import { checkPluginReadme, directivesOf, makeTestPki } from '@foghorn/testkit';
import tls from '@foghorn/plugin-tls';
import whoami from '@foghorn/plugin-whoami';

// The examples name cert.pem, key.pem and ca.pem as CoreDNS's do, and setup reads them: they are
// real test certificates in the directory the examples are validated from.
const pki = makeTestPki();
const readme = new URL('../../README.md', import.meta.url);
process.chdir(pki.readmeFiles());
after(() => pki.remove());

checkPluginReadme(readme, { name: 'tls', directives: directivesOf(tls, whoami), minExamples: 3, metrics: { corefile: 'tls://.:0 {\n tls cert.pem key.pem\n whoami\n}\n' } });
