/**
 * Parsing `tls` and loading its files, as CoreDNS's plugin/tls.
 *
 * ~~~ txt
 * tls CERT KEY [CA] {
 *     client_auth nocert|request|require|verify_if_given|require_and_verify
 * }
 * ~~~
 *
 * Setup reads and checks the files (a reload reads them again, so a renewed certificate is picked
 * up and a broken one fails the reload while the old listener keeps serving); the listener of a
 * `tls://` or `https://` block takes them from the block's settings.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { errorAt, errorMessage, rootedPath } from '@foghorn/core';
import type { ClientAuth, Controller, TlsSettings, Token } from '@foghorn/core';

/** What a `tls` line says, before any file is read. */
export interface TlsOptions {
  readonly cert: string;
  readonly key: string;
  /** CA bundle that verifies client certificates; the system CAs when absent. */
  readonly ca?: string;
  readonly clientAuth: ClientAuth;
}

const clientAuths: ReadonlySet<string> = new Set<ClientAuth>(['nocert', 'request', 'require', 'verify_if_given', 'require_and_verify']);

/** The options of the block's `tls` lines (the last one wins, as in CoreDNS) and where its CERT argument is. */
export function parseTls(c: Controller): TlsOptions & { readonly at: Token } {
  let parsed: (TlsOptions & { at: Token }) | undefined;
  while (c.next()) {
    const args = c.remainingArgTokens();
    // CoreDNS v1.14 obtains a certificate by ACME when `tls` has no argument; Foghorn does not.
    if (args.length === 0) throw c.error('tls without CERT and KEY (ACME) is not supported: give tls CERT KEY [CA]');
    if (args.length < 2 || args.length > 3) throw c.argError();
    let clientAuth: ClientAuth = 'nocert';
    while (c.nextBlock()) {
      const option = c.val();
      if (option !== 'client_auth') throw c.error(`unknown option '${option}'`);
      const values = c.remainingArgs();
      if (values.length !== 1) throw c.argError();
      if (!clientAuths.has(values[0]!)) throw c.error(`unknown authentication type '${values[0]}'`);
      clientAuth = values[0] as ClientAuth;
    }
    // Relative paths are under the block's *root* (CoreDNS joins them to config.Root).
    const [cert, key, ca] = args;
    parsed = { cert: rootedPath(c, cert!.text), key: rootedPath(c, key!.text), ...(ca ? { ca: rootedPath(c, ca.text) } : {}), clientAuth, at: cert! };
  }
  if (!parsed) throw c.argError();
  return parsed;
}

/** Go's wording for a file that cannot be read: `open cert.pem: no such file or directory`. */
function readError(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : errorMessage(error);
  return code === 'EISDIR' ? `read ${path}: ${reason}` : `open ${path}: ${reason}`;
}

function read(path: string, at: Token, prefix: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw errorAt(at, `${prefix}${readError(path, error)}`);
  }
}

/**
 * Reads the certificate, key and CA and checks that they make a TLS server, with CoreDNS's error
 * texts (plugin/pkg/tls): `could not load TLS cert: …`, `error reading CA: …`,
 * `could not read root certs from CA`. Errors name the CERT argument's position.
 */
export function loadTls(options: TlsOptions, at: Token): TlsSettings {
  const cert = read(options.cert, at, 'could not load TLS cert: ');
  const key = read(options.key, at, 'could not load TLS cert: ');
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw errorAt(at, `could not load TLS cert: ${errorMessage(error)}`);
  }
  if (options.ca === undefined) return { cert, key, clientAuth: options.clientAuth };
  const ca = read(options.ca, at, `error reading ${options.ca}: `);
  try {
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no certificate');
    createSecureContext({ ca });
  } catch {
    throw errorAt(at, `could not read root certs from ${options.ca}`);
  }
  return { cert, key, ca, clientAuth: options.clientAuth };
}

export function setup(c: Controller): void {
  const { at, ...options } = parseTls(c);
  c.settings.tls = loadTls(options, at);
}
