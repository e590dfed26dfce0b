import { after } from 'node:test';
import { checkPluginReadme, directivesOf, makeTestPki } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import errors from '@foghorn/plugin-errors';
import etcd from '@foghorn/plugin-etcd';

// The TLS example names cert.pem, key.pem and ca.pem, which setup reads: real test certificates
// in the directory the examples are validated from.
const pki = makeTestPki();
const readme = new URL('../../README.md', import.meta.url);
process.chdir(pki.readmeFiles());
after(() => pki.remove());

// Setup sends nothing to etcd, so the endpoint is never asked.
checkPluginReadme(readme, { name: 'etcd', directives: directivesOf(bind, errors, etcd), minExamples: 3, metrics: { corefile: '.:0 {\n bind 127.0.0.1\n etcd\n}\n' } });
