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

/** autopath.go `AutoPath`; `zones` longest first. */
export function autoPathSearch(store: ClusterStore, options: KubernetesOptions, zones: readonly ZoneInfo[], search: readonly string[], req: Request): readonly string[] | null {
  if (options.pods !== 'verified') return null;
  const zone = zones.find((z) => isSubdomain(req.qname, z.name))?.name;
  if (zone === undefined) return null;
  const pod = store.pods.atIp(canonicalIp(req.remoteAddress))[0];
  if (pod === undefined) return null;
  const suffix = zone === '.' ? '' : zone;
  return [`${pod.namespace}.svc.${suffix}`, `svc.${suffix}`, zone === '.' ? '.' : zone, ...search, ''];
}
