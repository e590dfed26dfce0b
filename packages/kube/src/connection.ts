/**
 * Finds the API server and credentials, in the order CoreDNS's kubernetes plugin and the
 * Lighthouse binary use: `kubeconfig PATH [CONTEXT]`, `endpoint URL`, the pod's service account,
 * then `$KUBECONFIG`. The result is the client library's KubeConfig, so every auth method it
 * knows (token, client certificates, exec plugins, OIDC, rotating service-account tokens) works.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { defaultServiceAccountDir, KubeConnectionError } from './types.js';
import type { KubeConnection } from './types.js';

/** Where the connection came from, for log lines. */
export type ConnectionSource = 'kubeconfig' | 'endpoint' | 'in-cluster' | '$KUBECONFIG';

/** A connection ready for {@link startWatch}: resolve once in setup, reuse for every watch. */
export interface ResolvedConnection {
  readonly config: KubeConfig;
  readonly source: ConnectionSource;
  /** The API server URL. */
  readonly server: string;
}

export interface ResolveOptions {
  /** Service-account directory; default {@link defaultServiceAccountDir} (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
}

/**
 * Resolves a {@link KubeConnection} into a KubeConfig. Throws {@link KubeConnectionError} when
 * nothing usable is configured (a Corefile/setup error); never contacts the API server.
 */
export async function resolveConnection(
  connection: KubeConnection,
  env: NodeJS.ProcessEnv,
  options: ResolveOptions = {},
): Promise<ResolvedConnection> {
  let config: KubeConfig;
  let source: ConnectionSource;
  if (connection.kubeconfig !== undefined) {
    config = loadKubeconfigFiles([connection.kubeconfig], connection.context);
    source = 'kubeconfig';
  } else if (connection.endpoint !== undefined) {
    config = new KubeConfig();
    const server = checkEndpoint(connection.endpoint);
    // `endpoint` alone means no credentials, as in CoreDNS (e.g. `kubectl proxy` on loopback).
    config.loadFromOptions({
      clusters: [{ name: 'endpoint', server, skipTLSVerify: false }],
      users: [{ name: 'anonymous' }],
      contexts: [{ name: 'endpoint', cluster: 'endpoint', user: 'anonymous' }],
      currentContext: 'endpoint',
    });
    source = 'endpoint';
  } else {
    const inCluster = loadInCluster(env, options.serviceAccountDir ?? defaultServiceAccountDir);
    if (inCluster) {
      config = inCluster;
      source = 'in-cluster';
    } else if (env['KUBECONFIG']) {
      const files = env['KUBECONFIG'].split(path.delimiter).filter((f) => f !== '');
      config = loadKubeconfigFiles(files, connection.context);
      source = '$KUBECONFIG';
    } else {
      throw new KubeConnectionError(
        "no Kubernetes API server configured: give 'kubeconfig PATH [CONTEXT]' or 'endpoint URL', " +
          `run in a pod with a service account (${options.serviceAccountDir ?? defaultServiceAccountDir}/token and ` +
          'KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT), or set $KUBECONFIG',
      );
    }
  }
  // `kubeconfig` plus `endpoint`: the kubeconfig's credentials against the given server.
  if (connection.endpoint !== undefined && source === 'kubeconfig') {
    const server = checkEndpoint(connection.endpoint);
    const current = config.getCurrentCluster();
    config.clusters = config.clusters.map((c) => (c.name === current?.name ? { ...c, server } : c));
  }
  allowPlainHttp(config);
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new KubeConnectionError(`${source}: no current context with a cluster`);
  return { config, source, server: cluster.server };
}

function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new KubeConnectionError(`endpoint '${endpoint}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new KubeConnectionError(`endpoint '${endpoint}' must be an http or https URL`);
  }
  return endpoint.replace(/\/+$/, '');
}

/**
 * The client library refuses `http:` servers unless skipTLSVerify is set, although there is no
 * TLS to verify; kubectl accepts them (`kubectl proxy`), so mark plain-HTTP clusters as such.
 */
function allowPlainHttp(config: KubeConfig): void {
  config.clusters = config.clusters.map((c: Cluster) => (c.server.startsWith('http:') && !c.skipTLSVerify ? { ...c, skipTLSVerify: true } : c));
}

/** Loads kubeconfig files the way kubectl merges $KUBECONFIG: the first file to define a name wins. */
function loadKubeconfigFiles(files: readonly string[], context: string | undefined): KubeConfig {
  const config = new KubeConfig();
  files.forEach((file, i) => {
    const one = new KubeConfig();
    try {
      one.loadFromFile(file);
    } catch (err) {
      throw new KubeConnectionError(`kubeconfig '${file}': ${(err as Error).message}`, { cause: err });
    }
    if (i === 0) {
      config.loadFromOptions({ clusters: one.clusters, users: one.users, contexts: one.contexts, currentContext: one.currentContext });
      return;
    }
    const has = (list: readonly { name: string }[], name: string): boolean => list.some((x) => x.name === name);
    config.loadFromOptions({
      clusters: [...config.clusters, ...one.clusters.filter((c: Cluster) => !has(config.clusters, c.name))],
      users: [...config.users, ...one.users.filter((u: User) => !has(config.users, u.name))],
      contexts: [...config.contexts, ...one.contexts.filter((c: Context) => !has(config.contexts, c.name))],
      currentContext: config.currentContext || one.currentContext,
    });
  });
  const where = files.join(path.delimiter);
  if (context !== undefined) {
    if (!config.getContextObject(context)) throw new KubeConnectionError(`kubeconfig '${where}': context '${context}' not found`);
    config.setCurrentContext(context);
  }
  if (!config.getContextObject(config.currentContext)) throw new KubeConnectionError(`kubeconfig '${where}': no current context`);
  if (!config.getCurrentCluster()) throw new KubeConnectionError(`kubeconfig '${where}': context '${config.currentContext}' names no known cluster`);
  return config;
}

/**
 * client-go's InClusterConfig: KUBERNETES_SERVICE_HOST/PORT plus the service-account token.
 * The token is given as a file so the library re-reads it (bound tokens rotate hourly).
 * Returns undefined when this is not a pod, so the caller can try $KUBECONFIG.
 */
function loadInCluster(env: NodeJS.ProcessEnv, dir: string): KubeConfig | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  const tokenFile = path.join(dir, 'token');
  if (!host || !port || !fs.existsSync(tokenFile)) return undefined;
  const caFile = path.join(dir, 'ca.crt');
  const namespaceFile = path.join(dir, 'namespace');
  const namespace = fs.existsSync(namespaceFile) ? fs.readFileSync(namespaceFile, 'utf8').trim() : undefined;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
        skipTLSVerify: false,
        ...(fs.existsSync(caFile) ? { caFile } : {}),
      },
    ],
    users: [{ name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? { namespace } : {}) }],
    currentContext: 'in-cluster',
  });
  return config;
}
