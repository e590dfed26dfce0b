/**
 * Certificates for TLS tests, made at test time with the `openssl` command: a test CA, a server
 * certificate for `localhost` and 127.0.0.1 signed by it, a client certificate signed by it, and a
 * client certificate of another CA (which verification must refuse). EC P-256 keys, valid two days.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key: file paths and PEM text. */
export interface TestCert {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

/** A test PKI in a temporary directory; `remove()` deletes it. */
export interface TestPki {
  readonly dir: string;
  /** The CA: `ca.certFile` is what clients trust and what `tls CERT KEY CA` names. */
  readonly ca: TestCert;
  /** `localhost` / 127.0.0.1, signed by `ca`. */
  readonly server: TestCert;
  /** A client certificate signed by `ca`. */
  readonly client: TestCert;
  /** A client certificate signed by another CA. */
  readonly stranger: TestCert;
  /** Another server certificate signed by `ca`, with a different serial (for reload tests). */
  issueServer(name: string): TestCert;
  remove(): void;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function load(dir: string, name: string): TestCert {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string, subject: string): TestCert {
  openssl(dir, [
    'req', '-x509', ...curve, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${subject}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return load(dir, name);
}

function issue(dir: string, ca: string, name: string, subject: string, extensions: string): TestCert {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['req', ...curve, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${subject}`]);
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-set_serial', String(Date.now() % 1e9 + Math.floor(Math.random() * 1e6)),
    '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`,
  ]);
  return load(dir, name);
}

const serverExtensions = 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n';
const clientExtensions = 'extendedKeyUsage=clientAuth\n';

/** Makes a fresh test PKI (some 100 ms of `openssl`). */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-pki-'));
  const ca = makeCa(dir, 'ca', 'Foghorn Test CA');
  makeCa(dir, 'other-ca', 'Foghorn Other CA');
  return {
    dir,
    ca,
    server: issue(dir, 'ca', 'server', 'localhost', serverExtensions),
    client: issue(dir, 'ca', 'client', 'client.test', clientExtensions),
    stranger: issue(dir, 'other-ca', 'stranger', 'stranger.test', clientExtensions),
    issueServer: (name) => issue(dir, 'ca', name, 'localhost', serverExtensions),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
