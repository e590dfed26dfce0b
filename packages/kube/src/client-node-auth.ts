/**
 * Credentials Foghorn does not implement itself, through @kubernetes/client-node: a user's
 * `exec` credential plugin or `auth-provider` (OIDC, Azure, GCP), and a cluster's `proxy-url`.
 * connection.ts loads this module only for such a kubeconfig, so only those pay for the client
 * library (30 MB of heap and 65 MB resident for its import alone).
 */
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import type { RequestOptions } from 'node:https';
import { KubeConnectionError } from './types.js';
import type { ConnectionSource, Kubeconfig, RequestAuth, ResolvedConnection } from './connection.js';

/** A connection whose every request the client library authorizes (it runs the exec plugin, refreshes OIDC tokens, ...). */
export function clientNodeConnection(kubeconfig: Kubeconfig, source: ConnectionSource, server: string, namespace: string): ResolvedConnection {
  const config = new KubeConfig();
  try {
    // The merged files, paths already absolute, as one kubeconfig in the library's own loader.
    config.loadFromString(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: kubeconfig.clusters.map((c) => ({ name: c.name, cluster: c.value })),
        users: kubeconfig.users.map((u) => ({ name: u.name, user: u.value })),
        contexts: kubeconfig.contexts.map((c) => ({ name: c.name, context: c.value })),
        'current-context': kubeconfig.currentContext,
      }),
    );
  } catch (err) {
    throw new KubeConnectionError(`${source}: ${(err as Error).message}`, { cause: err });
  }
  // The library refuses `http:` servers unless skipTLSVerify is set, although there is no TLS to
  // verify; kubectl accepts them (`kubectl proxy`).
  config.clusters = config.clusters.map((c) => (c.server.startsWith('http:') && !c.skipTLSVerify ? { ...c, skipTLSVerify: true } : c));
  return {
    source,
    server,
    namespace,
    async authorize(): Promise<RequestAuth> {
      const options: RequestOptions = {};
      // Puts a fresh agent with the cluster's TLS settings (and proxy) and the Authorization header in options.
      await config.applyToHTTPSOptions(options);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name] = String(value);
      if (options.auth !== undefined && options.auth !== null) headers['Authorization'] = `Basic ${Buffer.from(options.auth).toString('base64')}`;
      const agent = options.agent instanceof http.Agent ? options.agent : new http.Agent();
      return { agent, headers };
    },
  };
}
