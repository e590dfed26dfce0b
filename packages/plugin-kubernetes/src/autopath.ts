/**
 * The search path of the pod asking, for *autopath* `@kubernetes` (CoreDNS plugin/kubernetes
 * autopath.go): `<namespace>.svc.<zone>`, `svc.<zone>`, `<zone>`, the server's own search
 * domains, and '' for the name as asked. Needs `pods verified`: the pod is found by the
 * client's address in the index, one map lookup per query.
 */
import { readFile } from 'node:fs/promises';
import { isSubdomain } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { parseResolvConf } from '@foghorn/core/wire';
import type { KubernetesOptions } from './options.js';
import type { ZoneInfo } from './resolve.js';
import { canonicalIp } from './store.js';
import type { ClusterStore } from './store.js';

/** setup.go `searchFromResolvConf`: the host's search domains; none when the file cannot be read. */
export async function readResolvSearch(): Promise<readonly string[]> {
  try {
    return parseResolvConf(await readFile('/etc/resolv.conf', 'utf8')).search;
  } catch {
    return [];
  }
}

/**
 * autopath.go `AutoPath`; `zones` longest first. The paths are kept per namespace and zone (a
 * handful), so a query allocates none.
 */
export class AutoPathSearch {
  private readonly paths = new Map<string, readonly string[]>();
  /** The host's search domains, after the cluster's. */
  private search: readonly string[] = [];

  constructor(
    private readonly options: KubernetesOptions,
    private readonly zones: readonly ZoneInfo[],
  ) {}

  /** Sets the host's search domains (read at startup); the kept paths start over. */
  setSearch(search: readonly string[]): void {
    this.search = search;
    this.paths.clear();
  }

  of(store: ClusterStore, req: Request): readonly string[] | null {
    if (this.options.pods !== 'verified') return null;
    const zone = this.zones.find((z) => isSubdomain(req.qname, z.name))?.name;
    if (zone === undefined) return null;
    const pod = store.pods.atIp(canonicalIp(req.remoteAddress))[0];
    if (pod === undefined) return null;
    const key = `${pod.namespace} ${zone}`;
    let path = this.paths.get(key);
    if (path === undefined) {
      const suffix = zone === '.' ? '' : zone;
      path = Object.freeze([`${pod.namespace}.svc.${suffix}`, `svc.${suffix}`, zone, ...this.search, '']);
      this.paths.set(key, path);
    }
    return path;
  }
}
