import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import whoami from '@foghorn/plugin-whoami';
import { directivesOf, makeTestPki, setupTable, startServer } from '@foghorn/testkit';
import tlsPlugin, { loadTls, parseTls } from '@foghorn/plugin-tls';
import type { TlsOptions } from '@foghorn/plugin-tls';

// Tables are registered when the module loads, so the files exist from then on.
const pki = makeTestPki();
after(() => pki.remove());
const garbage = join(pki.dir, 'garbage.pem');
writeFileSync(garbage, 'not a certificate\n');
const { certFile: cert, keyFile: key } = pki.server;
const ca = pki.ca.certFile;

/** What setup does: parse, then read and check the files. */
function parseAndLoad(c: Parameters<typeof parseTls>[0]): TlsOptions {
  const { at, ...options } = parseTls(c);
  loadTls(options, at);
  return options;
}

// In a dns:// block (allowed, as in CoreDNS): the table's probe parses without filling the settings a tls:// key needs.
setupTable('tls', parseAndLoad, {
  plugin: tlsPlugin,
  good: [
    { input: `tls ${cert} ${key}`, want: { cert, key, clientAuth: 'nocert' } },
    { input: `tls ${cert} ${key} ${ca}`, want: { cert, key, ca, clientAuth: 'nocert' } },
    { input: `tls ${cert} ${key} ${ca} {\n client_auth require_and_verify\n}`, want: { cert, key, ca, clientAuth: 'require_and_verify' } },
    { input: `tls ${cert} ${key} {\n client_auth request\n}`, want: { cert, key, clientAuth: 'request' } },
    { input: `tls ${cert} ${key} {\n client_auth require\n}`, want: { cert, key, clientAuth: 'require' } },
    { input: `tls ${cert} ${key} {\n client_auth verify_if_given\n}`, want: { cert, key, clientAuth: 'verify_if_given' } },
    // The last line of a block wins, as CoreDNS's loop overwrites the config.
    { input: `tls ${garbage} ${garbage}\ntls ${cert} ${key}`, want: { cert, key, clientAuth: 'nocert' } },
  ],
  bad: [
    { input: 'tls cert.pem', error: "Corefile:2:5 - Error during parsing: Wrong argument count or unexpected line ending after 'cert.pem'" },
    { input: 'tls a b c d', error: "Corefile:2:11 - Error during parsing: Wrong argument count or unexpected line ending after 'd'" },
    { input: 'tls', error: 'Corefile:2:1 - Error during parsing: tls without CERT and KEY (ACME) is not supported' },
    { input: `tls ${cert} ${key} {\n client_auth\n}`, error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'client_auth'" },
    { input: `tls ${cert} ${key} {\n client_auth sometimes\n}`, error: "Corefile:3:14 - Error during parsing: unknown authentication type 'sometimes'" },
    { input: `tls ${cert} ${key} {\n keylog /tmp/keys\n}`, error: "Corefile:3:2 - Error during parsing: unknown option 'keylog'" },
    { input: `tls missing.pem ${key}`, error: 'Corefile:2:5 - Error during parsing: could not load TLS cert: open missing.pem: no such file or directory' },
    { input: `tls ${cert} missing.key`, error: 'Corefile:2:5 - Error during parsing: could not load TLS cert: open missing.key: no such file or directory' },
    { input: `tls ${garbage} ${key}`, error: 'Corefile:2:5 - Error during parsing: could not load TLS cert: ' },
    { input: `tls ${cert} ${pki.client.keyFile}`, error: 'Corefile:2:5 - Error during parsing: could not load TLS cert: ' },
    { input: `tls ${cert} ${key} missing-ca.pem`, error: 'Corefile:2:5 - Error during parsing: error reading missing-ca.pem: open missing-ca.pem: no such file or directory' },
    { input: `tls ${cert} ${key} ${garbage}`, error: `Corefile:2:5 - Error during parsing: could not read root certs from ${garbage}` },
  ],
});

test('a tls:// or https:// block without tls is refused, naming the block', async () => {
  for (const key of ['tls://example.org', 'https://.:8443']) {
    await assert.rejects(
      validateCorefile({ path: 'Corefile', contents: `.:1053 {\n  whoami\n}\n\n${key} {\n  whoami\n}\n` }, { directives: directivesOf(tlsPlugin, whoami) }),
      (error: Error) => {
        assert.match(error.message, /^Corefile:5:1 - Error during parsing: cannot serve (tls|https):\/\/\S+ - a (tls|https):\/\/ server block needs the tls directive \(tls CERT KEY \[CA\]\)$/);
        return true;
      },
    );
  }
});

test('a bad certificate stops the start with its file:line:column', async () => {
  await assert.rejects(
    startServer(`tls://.:0 {\n  tls ${cert} ${pki.stranger.keyFile}\n  whoami\n}\n`, { directives: directivesOf(tlsPlugin, whoami), file: 'Corefile.tls' }),
    /^ConfigError: plugin\/tls: Corefile\.tls:2:7 - Error during parsing: could not load TLS cert: .*key values mismatch/,
  );
});
