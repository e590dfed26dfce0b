/**
 * Setup of *k8s_external* (CoreDNS plugin/k8s_external/setup.go): parses the zones and options,
 * and at startup takes the externals of the *kubernetes* plugin of the same server block, which
 * must be there.
 */
import { atoi, fallthroughZones, KubernetesExternals, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { External } from './handler.js';
import type { ExternalOptions, ExternalSource } from './handler.js';

/** Parses `k8s_external [ZONE...] { apex APEX; ttl TTL; headless; fallthrough [ZONE...] }`. */
export function parseK8sExternal(c: Controller): ExternalOptions {
  let zones: string[] = [];
  let apex = 'dns';
  let ttl = 5;
  let headless = false;
  let fallthrough: string[] | null = null;
  while (c.next()) {
    zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'ttl': {
          const args = c.remainingArgs();
          if (args.length === 0) throw c.argError();
          const t = atoi(c, args[0]!);
          if (t < 0 || t > 3600) throw c.error(`ttl must be in range [0, 3600]: ${t}`);
          ttl = t;
          break;
        }
        case 'apex': {
          const args = c.remainingArgs();
          if (args.length === 0) throw c.argError();
          apex = args[0]!;
          break;
        }
        case 'headless':
          headless = true;
          break;
        case 'fallthrough':
          fallthrough = fallthroughZones(c, c.remainingArgs());
          break;
        default:
          throw c.error(`unknown property '${c.val()}'`);
      }
    }
  }
  return { zones, apex, ttl, headless, fallthrough };
}

/** Parses the directive, adds the handler, and finds the kubernetes plugin's externals at startup. */
export function setup(c: Controller): void {
  const options = parseK8sExternal(c);
  const offers = c.use(KubernetesExternals);
  const source: ExternalSource = { externals: null };
  c.onStartup(() => {
    const found = offers.find((offer) => offer.name === 'kubernetes');
    if (found === undefined) throw new Error('kubernetes plugin not loaded');
    source.externals = found;
  });
  c.addHandler((next) => new External(options, source, next));
}
