/**
 * DNS over TLS and HTTPS test helpers. Certificates for TLS tests, made at test time with the `openssl` command: a test CA, a server
 * certificate for `localhost` and 127.0.0.1 signed by it, a client certificate signed by it, and a
 * client certificate of another CA (which verification must refuse). EC P-256 keys, valid two days.
 * Plus a DoH request helper (HTTP/2 or HTTP/1.1) and a runner for Knot's `kdig`.
 */
import { execFile, execFileSync } from 'node:child_process';
import http2 from 'node:http2';
import https from 'node:https';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /**
   * Another server certificate signed by `ca`, with a different serial (for reload tests); with
   * `clientAuth` it serves as a client certificate too (etcd's gateway dials its own gRPC port with it).
   */
  issueServer(name: string, options?: { clientAuth?: boolean }): TestCert;
  /**
   * Writes the server certificate, its key and the CA as `cert.pem`, `key.pem` and `ca.pem`
   * (the names of CoreDNS's README examples) into {@link dir}, and returns it.
   */
  readmeFiles(): string;
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
  const server = issue(dir, 'ca', 'server', 'localhost', serverExtensions);
  return {
    dir,
    ca,
    server,
    client: issue(dir, 'ca', 'client', 'client.test', clientExtensions),
    stranger: issue(dir, 'other-ca', 'stranger', 'stranger.test', clientExtensions),
    issueServer: (name, options = {}) => issue(dir, 'ca', name, 'localhost', options.clientAuth ? serverExtensions.replace('serverAuth', 'serverAuth,clientAuth') : serverExtensions),
    readmeFiles: () => {
      copyFileSync(server.certFile, join(dir, 'cert.pem'));
      copyFileSync(server.keyFile, join(dir, 'key.pem'));
      copyFileSync(ca.certFile, join(dir, 'ca.pem'));
      return dir;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An HTTP reply as a DoH test reads it. */
export interface DohReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  /** `h2` or `http/1.1`, as negotiated. */
  readonly protocol: string;
}

/** One HTTPS request for DoH tests: HTTP/2 by default, HTTP/1.1 with `http1`. */
export interface DohRequest {
  readonly port: number;
  readonly ca: string;
  readonly method?: string;
  /** Path with query string; `/dns-query` by default. */
  readonly path?: string;
  readonly body?: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  readonly http1?: boolean;
  /** Client certificate and key, for client_auth. */
  readonly cert?: string;
  readonly key?: string;
}

/** Sends one request to a DoH listener on 127.0.0.1 (server name `localhost`) and reads the whole reply. */
export async function dohRequest(request: DohRequest): Promise<DohReply> {
  const path = request.path ?? '/dns-query';
  const method = request.method ?? 'GET';
  const auth = { ca: request.ca, servername: 'localhost', ...(request.cert ? { cert: request.cert, key: request.key } : {}) };
  const headers = { ...(request.body ? { 'content-type': 'application/dns-message' } : {}), ...request.headers };
  if (request.http1) {
    return new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: request.port, path, method, headers, agent: false, ...auth }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), protocol: 'http/1.1' }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(request.body);
    });
  }
  const session = http2.connect(`https://127.0.0.1:${request.port}`, auth);
  try {
    return await new Promise<DohReply>((resolve, reject) => {
      session.on('error', reject);
      const stream = session.request({ ':method': method, ':path': path, ...headers });
      const chunks: Buffer[] = [];
      let responseHeaders: Record<string, string | string[] | undefined> = {};
      stream.on('response', (h) => (responseHeaders = h as Record<string, string | string[] | undefined>));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (responseHeaders[':status'] === undefined) reject(new Error('the stream ended without a response'));
        else resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders, body: Buffer.concat(chunks), protocol: session.alpnProtocol ?? '' });
      });
      stream.on('close', () => reject(new Error('the stream closed without a response')));
      stream.on('error', reject);
      stream.end(request.body);
    });
  } finally {
    session.close();
  }
}

/** Runs Knot's `kdig` (Debian package knot-dnsutils) and resolves with its output; rejects when it exits non-zero. */
export function kdig(args: readonly string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('kdig', args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kdig ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout + stderr);
    });
  });
}
