/**
 * A `-workers` worker for bench/informer-hub.ts: acquires Services and EndpointSlices through
 * `informerRegistry` (the hub's, FOGHORN_INFORMER_HUB=1) and reports when each call arrived,
 * stamped on the shared wall clock (`performance.timeOrigin + performance.now()`).
 */
import { endpointSlicesResource, informerRegistry, servicesResource } from '@foghorn/kube';
import type { InformerLease, KubeObject } from '@foghorn/kube';
import { createLogger } from '@foghorn/core';
import type { SharedKey } from '@foghorn/core';

const now = (): number => performance.timeOrigin + performance.now();
/** CPU time of this process so far, ms. */
const cpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const shared = new Map<SharedKey<unknown>, unknown>();
const registry = informerRegistry({
  shared<T>(key: SharedKey<T>, create: () => T): T {
    if (!shared.has(key)) shared.set(key, create());
    return shared.get(key) as T;
  },
});
const report = (message: Record<string, unknown>): void => {
  process.send!({ bench: true, ...message });
};

const resources = { services: servicesResource(), endpointslices: endpointSlicesResource() };
const leases = new Map<string, InformerLease>();

process.on('message', async (message: { bench?: string; endpoint?: string; plural?: 'services' | 'endpointslices' }) => {
  const plural = message.plural!;
  if (message.bench === 'release') {
    await leases.get(plural)?.release();
    leases.delete(plural);
    report({ op: 'released', plural });
    return;
  }
  if (message.bench !== 'acquire') return;
  const lease = await registry.acquire({ endpoint: message.endpoint! }, resources[plural], {
    replace: (items: readonly KubeObject[]) => report({ at: now(), plural, op: 'replace', count: items.length, cpu: cpu() }),
    upsert: (item: KubeObject) => report({ at: now(), plural, op: 'upsert', name: item.metadata?.name, version: item.metadata?.resourceVersion }),
    remove: () => {},
  }, { logger: createLogger().forPlugin('bench'), plugin: 'bench', backoffInitialMs: 10 });
  leases.set(plural, lease);
});
report({ op: 'ready' });
