/**
 * Finds the API server and credentials, in the order CoreDNS's kubernetes plugin and the
 * Lighthouse binary use: `kubeconfig PATH [CONTEXT]`, `endpoint URL`, the pod's service account,
 * then `$KUBECONFIG`.
 *
 * What a DNS pod uses is read here, with node:https alone: the service account (its token read
 * again as the kubelet rotates it), and a kubeconfig's server, CA, insecure-skip-tls-verify,
 * tls-server-name, token, tokenFile, client certificate and key, basic auth and impersonation.
 * @kubernetes/client-node is not loaded for them: its `KubeConfig` imports the client's
 * generated API, about 950 modules, which cost a process 30 MB of heap and 65 MB of resident
 * memory (docs/performance.md, "Memory: the cluster-DNS job"). A kubeconfig whose user runs an
 * `exec` credential plugin or an `auth-provider` (OIDC, cloud providers), or whose cluster needs
 * a `proxy-url`, is handed to the client library instead (client-node-auth.ts), loaded then, so
 * every auth method it knows keeps working.
 */
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import type { SecureContext } from 'node:tls';
import { defaultServiceAccountDir, KubeConnectionError } from './types.js';
import type { KubeConnection } from './types.js';
import { yaml } from './yaml.js';

/** Where the connection came from, for log lines. */
export type ConnectionSource = 'kubeconfig' | 'endpoint' | 'in-cluster' | '$KUBECONFIG';

/** What one request needs: an agent with the cluster's TLS settings, and the credential headers. */
export interface RequestAuth {
  /** A fresh agent: the caller destroys it once done, which ends its sockets at once. */
  readonly agent: http.Agent;
  readonly headers: Readonly<Record<string, string>>;
}

/** A connection ready for {@link startWatch}: resolve once in setup, reuse for every watch. */
export interface ResolvedConnection {
  readonly source: ConnectionSource;
  /** The API server URL, without a trailing slash. */
  readonly server: string;
  /** The current context's namespace, '' when it names none. */
  readonly namespace: string;
  /**
   * The agent and headers for one request (`keepAlive`: the agent keeps its connection for the
   * next request, as a paged list's pages do). Files the credentials come from (a rotating
   * service-account token, certificates) are read again as they change.
   */
  authorize(keepAlive: boolean): Promise<RequestAuth>;
}

export interface ResolveOptions {
  /** Service-account directory; default {@link defaultServiceAccountDir} (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
}

/** A kubeconfig cluster, as the file spells it. */
interface ClusterEntry {
  readonly server?: unknown;
  readonly 'certificate-authority'?: unknown;
  readonly 'certificate-authority-data'?: unknown;
  readonly 'insecure-skip-tls-verify'?: unknown;
  readonly 'tls-server-name'?: unknown;
  readonly 'proxy-url'?: unknown;
}

/** A kubeconfig user, as the file spells it. */
interface UserEntry {
  readonly token?: unknown;
  readonly tokenFile?: unknown;
  readonly 'client-certificate'?: unknown;
  readonly 'client-certificate-data'?: unknown;
  readonly 'client-key'?: unknown;
  readonly 'client-key-data'?: unknown;
  readonly username?: unknown;
  readonly password?: unknown;
  readonly as?: unknown;
  readonly exec?: unknown;
  readonly 'auth-provider'?: unknown;
}

interface ContextEntry {
  readonly cluster?: unknown;
  readonly user?: unknown;
  readonly namespace?: unknown;
}

interface Named<T> {
  readonly name: string;
  readonly value: T;
}

/** One or more kubeconfig files merged as kubectl merges $KUBECONFIG: the first file to define a name wins. */
export interface Kubeconfig {
  readonly clusters: Named<ClusterEntry>[];
  readonly users: Named<UserEntry>[];
  readonly contexts: Named<ContextEntry>[];
  currentContext: string;
}

/**
 * Resolves a {@link KubeConnection}. Throws {@link KubeConnectionError} when nothing usable is
 * configured (a Corefile/setup error); never contacts the API server.
 */
export async function resolveConnection(connection: KubeConnection, env: NodeJS.ProcessEnv, options: ResolveOptions = {}): Promise<ResolvedConnection> {
  if (connection.kubeconfig !== undefined) {
    const endpoint = connection.endpoint !== undefined ? checkEndpoint(connection.endpoint) : undefined;
    return fromKubeconfig(await loadKubeconfigFiles([connection.kubeconfig], connection.context), 'kubeconfig', endpoint);
  }
  if (connection.endpoint !== undefined) {
    // `endpoint` alone means no credentials, as in CoreDNS (e.g. `kubectl proxy` on loopback).
    const server = checkEndpoint(connection.endpoint);
    return ownConnection('endpoint', server, '', {}, {});
  }
  const dir = options.serviceAccountDir ?? defaultServiceAccountDir;
  const inCluster = loadInCluster(env, dir);
  if (inCluster) return inCluster;
  if (env['KUBECONFIG']) {
    const files = env['KUBECONFIG'].split(path.delimiter).filter((f) => f !== '');
    return fromKubeconfig(await loadKubeconfigFiles(files, connection.context), '$KUBECONFIG', undefined);
  }
  throw new KubeConnectionError(
    "no Kubernetes API server configured: give 'kubeconfig PATH [CONTEXT]' or 'endpoint URL', " +
      `run in a pod with a service account (${dir}/token and ` +
      'KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT), or set $KUBECONFIG',
  );
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A kubeconfig's `clusters`, `users` or `contexts` list: `{ name, <field>: {...} }` entries. */
function namedList<T>(list: unknown, field: string, root: string, where: string): Named<T>[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeConnectionError(`kubeconfig '${where}': ${field}s is not a list`);
  return list.filter(isObject).map((entry) => ({ name: String(entry['name'] ?? ''), value: absolutePaths(isObject(entry[field]) ? entry[field] : {}, root) as T }));
}

/** The file fields of a kubeconfig entry are relative to the file's directory (kubectl, client-go). */
function absolutePaths(entry: Record<string, unknown>, root: string): Record<string, unknown> {
  const out = { ...entry };
  for (const field of ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile']) {
    const file = text(out[field]);
    if (file !== undefined && !path.isAbsolute(file)) out[field] = path.join(root, file);
  }
  return out;
}

/**
 * Reads one kubeconfig file: YAML, or JSON (which is YAML too, and is read without loading the
 * YAML parser's modules).
 */
async function readKubeconfig(file: string): Promise<Record<string, unknown>> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    throw new KubeConnectionError(`kubeconfig '${file}': ${(err as Error).message}`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = source.trimStart().startsWith('{') ? parseJsonOrUndefined(source) : undefined;
    parsed ??= yaml().parse(source);
  } catch (err) {
    throw new KubeConnectionError(`kubeconfig '${file}': ${(err as Error).message}`, { cause: err });
  }
  return isObject(parsed) ? parsed : {};
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON after all (a YAML flow mapping): the YAML parser reads it.
    return undefined;
  }
}

/** Loads kubeconfig files the way kubectl merges $KUBECONFIG: the first file to define a name wins. */
export async function loadKubeconfigFiles(files: readonly string[], context: string | undefined): Promise<Kubeconfig> {
  const config: Kubeconfig = { clusters: [], users: [], contexts: [], currentContext: '' };
  const merge = <T>(into: Named<T>[], from: Named<T>[]): void => {
    for (const entry of from) if (!into.some((x) => x.name === entry.name)) into.push(entry);
  };
  const where = files.join(path.delimiter);
  for (const file of files) {
    const raw = await readKubeconfig(file);
    const root = path.dirname(path.resolve(file));
    merge(config.clusters, namedList<ClusterEntry>(raw['clusters'], 'cluster', root, file));
    merge(config.users, namedList<UserEntry>(raw['users'], 'user', root, file));
    merge(config.contexts, namedList<ContextEntry>(raw['contexts'], 'context', root, file));
    if (config.currentContext === '') config.currentContext = text(raw['current-context']) ?? '';
  }
  if (context !== undefined) {
    if (!config.contexts.some((c) => c.name === context)) throw new KubeConnectionError(`kubeconfig '${where}': context '${context}' not found`);
    config.currentContext = context;
  }
  const current = config.contexts.find((c) => c.name === config.currentContext);
  if (!current) throw new KubeConnectionError(`kubeconfig '${where}': no current context`);
  if (!config.clusters.some((c) => c.name === current.value.cluster)) {
    throw new KubeConnectionError(`kubeconfig '${where}': context '${config.currentContext}' names no known cluster`);
  }
  return config;
}

/** The current context's cluster and user; `endpoint` replaces the cluster's server. */
async function fromKubeconfig(config: Kubeconfig, source: ConnectionSource, endpoint: string | undefined): Promise<ResolvedConnection> {
  const context = config.contexts.find((c) => c.name === config.currentContext)!.value;
  const clusterIndex = config.clusters.findIndex((c) => c.name === context.cluster);
  let cluster = config.clusters[clusterIndex]!.value;
  if (endpoint !== undefined) {
    // `kubeconfig` plus `endpoint`: the kubeconfig's credentials against the given server.
    cluster = { ...cluster, server: endpoint };
    config.clusters[clusterIndex] = { name: config.clusters[clusterIndex]!.name, value: cluster };
  }
  const server = text(cluster.server)?.replace(/\/+$/, '');
  if (server === undefined) throw new KubeConnectionError(`${source}: cluster '${String(context.cluster)}' has no server`);
  const user = config.users.find((u) => u.name === context.user)?.value ?? {};
  const namespace = text(context.namespace) ?? '';
  if (user.exec !== undefined || user['auth-provider'] !== undefined || cluster['proxy-url'] !== undefined) {
    const { clientNodeConnection } = await import('./client-node-auth.js');
    return clientNodeConnection(config, source, server, namespace);
  }
  return ownConnection(source, server, namespace, cluster, user);
}

/**
 * client-go's InClusterConfig: KUBERNETES_SERVICE_HOST/PORT plus the service-account token and
 * CA. Returns undefined when this is not a pod, so the caller can try $KUBECONFIG.
 */
function loadInCluster(env: NodeJS.ProcessEnv, dir: string): ResolvedConnection | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  const tokenFile = path.join(dir, 'token');
  if (!host || !port || !fs.existsSync(tokenFile)) return undefined;
  const caFile = path.join(dir, 'ca.crt');
  const namespaceFile = path.join(dir, 'namespace');
  const namespace = fs.existsSync(namespaceFile) ? fs.readFileSync(namespaceFile, 'utf8').trim() : '';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return ownConnection('in-cluster', server, namespace, fs.existsSync(caFile) ? { 'certificate-authority': caFile } : {}, { tokenFile });
}

/**
 * How long a token file's content is trusted before it is read again: client-go's cached token
 * source re-reads a service account's token once a minute, and the kubelet rotates bound tokens
 * well before they expire (at 80 % of an hour).
 */
const tokenFileRefreshMs = 60_000;

/** Reads `file` at most once per {@link tokenFileRefreshMs}. */
function cachedFile(file: string): () => Promise<string> {
  let value: string | undefined;
  let readAt = 0;
  return async () => {
    if (value === undefined || Date.now() - readAt >= tokenFileRefreshMs) {
      value = (await readFile(file, 'utf8')).trim();
      readAt = Date.now();
    }
    return value;
  };
}

/** PEM data from a file (read at each call: certificates rotate) or base64 `-data`. */
function pem(file: unknown, data: unknown): (() => Promise<Buffer>) | undefined {
  const f = text(file);
  if (f !== undefined) return () => readFile(f);
  const d = text(data);
  if (d !== undefined) {
    const decoded = Buffer.from(d, 'base64');
    return () => Promise.resolve(decoded);
  }
  return undefined;
}

/** A connection with node:https and nothing else: TLS from the cluster, a header from the user. */
function ownConnection(source: ConnectionSource, server: string, namespace: string, cluster: ClusterEntry, user: UserEntry): ResolvedConnection {
  const secure = server.startsWith('https:');
  const ca = pem(cluster['certificate-authority'], cluster['certificate-authority-data']);
  const cert = pem(user['client-certificate'], user['client-certificate-data']);
  const key = pem(user['client-key'], user['client-key-data']);
  const skipVerify = cluster['insecure-skip-tls-verify'] === true;
  const serverName = text(cluster['tls-server-name']);
  const tokenFile = text(user.tokenFile);
  const token = text(user.token);
  const readToken = token === undefined && tokenFile !== undefined ? cachedFile(tokenFile) : undefined;
  const username = text(user.username);
  const basic = username !== undefined ? `Basic ${Buffer.from(`${username}:${typeof user.password === 'string' ? user.password : ''}`).toString('base64')}` : undefined;
  const impersonate = text(user.as);
  const tls = new TlsContexts([ca, cert, key]);
  return {
    source,
    server,
    namespace,
    async authorize(keepAlive) {
      const headers: Record<string, string> = {};
      // As client-node: a bearer token wins over basic auth.
      const bearer = token ?? (await readToken?.());
      if (bearer !== undefined && bearer !== '') headers['Authorization'] = `Bearer ${bearer}`;
      else if (basic !== undefined) headers['Authorization'] = basic;
      if (impersonate !== undefined) headers['Impersonate-User'] = impersonate;
      if (!secure) return { agent: new http.Agent({ keepAlive }), headers };
      const agent = new https.Agent({
        keepAlive,
        secureContext: await tls.context(),
        ...(skipVerify ? { rejectUnauthorized: false } : {}),
        ...(serverName !== undefined ? { servername: serverName } : {}),
      });
      return { agent, headers };
    },
  };
}

/**
 * One TLS context for every request while the CA, certificate and key stay the same: creating
 * one parses them into OpenSSL's structures, and a list and a watch per resource, again at every
 * restart, made a new one each time.
 */
class TlsContexts {
  private current: { readonly material: readonly (Buffer | undefined)[]; readonly context: SecureContext } | undefined;

  constructor(private readonly files: readonly ((() => Promise<Buffer>) | undefined)[]) {}

  async context(): Promise<SecureContext> {
    const material = await Promise.all(this.files.map((read) => read?.()));
    const current = this.current;
    if (current && material.every((m, i) => m === current.material[i] || (m !== undefined && current.material[i]?.equals(m)))) return current.context;
    const [ca, cert, key] = material;
    const context = createSecureContext({ ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) });
    this.current = { material, context };
    return context;
  }
}
