import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { checkPluginReadme, directivesOf, makeTestPki } from '@foghorn/testkit';
import timeouts from '@foghorn/plugin-timeouts';
import tls from '@foghorn/plugin-tls';
import whoami from '@foghorn/plugin-whoami';

// The examples name cert.pem, key.pem and ca.pem as CoreDNS's do; tls reads them, so they must
// exist: real test certificates in the directory the examples are validated from.
const pki = makeTestPki();
copyFileSync(pki.server.certFile, join(pki.dir, 'cert.pem'));
copyFileSync(pki.server.keyFile, join(pki.dir, 'key.pem'));
copyFileSync(pki.ca.certFile, join(pki.dir, 'ca.pem'));
const readme = new URL('../../README.md', import.meta.url);
process.chdir(pki.dir);
after(() => pki.remove());

checkPluginReadme(readme, { name: 'timeouts', directives: directivesOf(timeouts, tls, whoami), minExamples: 3 });
