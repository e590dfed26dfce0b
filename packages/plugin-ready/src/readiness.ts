/**
 * The readiness list /ready reports on: every probe of the running configuration, grouped by
 * plugin name, checked on each request (CoreDNS `plugin/ready/list.go`).
 */
import type { ReadinessProbe } from '@foghorn/core';

/** `until-ready` stops polling a plugin once it was ready; `continuously` polls every time. */
export type MonitorMode = 'until-ready' | 'continuously';

export class ReadinessList {
  private probes: readonly ReadinessProbe[] = [];
  /** Probes seen ready; in `until-ready` mode they are never asked again. */
  private readonly confirmed = new Set<ReadinessProbe>();
  mode: MonitorMode = 'until-ready';

  /**
   * Switches to a configuration's probes. A new list (a reload) starts unconfirmed, as CoreDNS
   * resets its list in setup; the same list again (another block) keeps what was learned.
   */
  use(probes: readonly ReadinessProbe[], mode: MonitorMode): void {
    if (probes !== this.probes) {
      this.probes = probes;
      this.confirmed.clear();
    }
    this.mode = mode;
  }

  /**
   * The sorted names of the plugins not ready, empty when all are. A name reported from several
   * blocks is one entry, not ready while any of its probes is not.
   */
  notReady(): string[] {
    const names = new Set<string>();
    const keep = this.mode === 'until-ready';
    for (const probe of this.probes) {
      if (this.confirmed.has(probe)) continue;
      if (probe.ready()) {
        if (keep) this.confirmed.add(probe);
      } else {
        names.add(probe.name);
      }
    }
    return [...names].sort();
  }
}
