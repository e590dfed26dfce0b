/**
 * Files a Kubernetes client reads to find its API server: a TLS pair for the test server, a
 * kubeconfig, and an in-cluster service-account directory with the matching environment.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { insecureTestCertPem, insecureTestKeyPem } from './insecure-test-tls.js';

/** A temporary directory that tests remove in `t.after`. */
export interface TempDir {
  readonly path: string;
  remove(): void;
}

export function makeTempDir(prefix = 'foghorn-kube-'): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { path: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A PEM certificate (self-signed, so it is its own CA) and key for 127.0.0.1, ::1 and localhost. */
export interface TlsPair {
  readonly cert: string;
  readonly key: string;
  /** 'openssl' when generated for this process, 'fixture' for the committed test-only pair. */
  readonly source: 'openssl' | 'fixture';
}

let cachedPair: TlsPair | undefined;

/**
 * Generates a fresh self-signed pair with the `openssl` CLI once per process (about 50 ms), or
 * falls back to the committed test-only pair when `openssl` is not installed.
 */
export function testTlsPair(): TlsPair {
  if (cachedPair) return cachedPair;
  const dir = makeTempDir('foghorn-tls-');
  try {
    const keyFile = path.join(dir.path, 'key.pem');
    const certFile = path.join(dir.path, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost',
        '-keyout', keyFile, '-out', certFile,
      ],
      { stdio: 'ignore' },
    );
    cachedPair = { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), source: 'openssl' };
  } catch {
    // No openssl binary (or one too old for -addext): use the committed test-only pair.
    cachedPair = { cert: insecureTestCertPem, key: insecureTestKeyPem, source: 'fixture' };
  } finally {
    dir.remove();
  }
  return cachedPair;
}

/** One context of a kubeconfig written by {@link writeKubeconfig}. */
export interface KubeconfigContext {
  readonly name: string;
  readonly server: string;
  /** PEM CA certificate; written as `certificate-authority-data`. */
  readonly ca?: string;
  readonly token?: string;
  readonly namespace?: string;
  readonly insecureSkipTlsVerify?: boolean;
}

/**
 * Writes a kubeconfig (JSON, which is valid YAML) with one cluster and user per context; the
 * first context is current unless `currentContext` names another. Returns the file's path.
 */
export function writeKubeconfig(file: string, contexts: readonly KubeconfigContext[], currentContext?: string): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': currentContext ?? contexts[0]?.name ?? '',
    clusters: contexts.map((c) => ({
      name: `${c.name}-cluster`,
      cluster: {
        server: c.server,
        ...(c.ca !== undefined ? { 'certificate-authority-data': Buffer.from(c.ca).toString('base64') } : {}),
        ...(c.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
      },
    })),
    users: contexts.map((c) => ({ name: `${c.name}-user`, user: c.token !== undefined ? { token: c.token } : {} })),
    contexts: contexts.map((c) => ({
      name: c.name,
      context: { cluster: `${c.name}-cluster`, user: `${c.name}-user`, ...(c.namespace !== undefined ? { namespace: c.namespace } : {}) },
    })),
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** What a pod sees: the service-account directory and the service environment variables. */
export interface InClusterFiles {
  /** Directory holding `token`, `ca.crt` and `namespace`. */
  readonly dir: string;
  readonly env: { KUBERNETES_SERVICE_HOST: string; KUBERNETES_SERVICE_PORT: string };
}

/**
 * Writes `token`, `ca.crt` and `namespace` into `dir`, as the kubelet mounts them at
 * /var/run/secrets/kubernetes.io/serviceaccount. The token has no trailing newline, like the
 * kubelet's, because clients put the file's bytes straight into the Authorization header.
 */
export function writeServiceAccount(
  dir: string,
  options: { token: string; ca: string; namespace?: string; host?: string; port: number },
): InClusterFiles {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'token'), options.token);
  fs.writeFileSync(path.join(dir, 'ca.crt'), options.ca);
  fs.writeFileSync(path.join(dir, 'namespace'), options.namespace ?? 'default');
  return { dir, env: { KUBERNETES_SERVICE_HOST: options.host ?? '127.0.0.1', KUBERNETES_SERVICE_PORT: String(options.port) } };
}
