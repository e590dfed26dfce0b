/**
 * The reverse index: PTR answers for clusterset IPs, per-cluster service IPs and headless
 * endpoints (KEP-1645, "PTR records"). Unlike forward names they are few, so they are kept
 * built; each service remembers the reverse names it contributed to, so a change withdraws
 * exactly those, and an address shared by two services keeps both targets.
 */
import { positive } from './answer.js';
import type { Answer, ZoneInfo } from './answer.js';
import { reverseName } from './addresses.js';
import { baseName } from './names.js';
import { exact } from './store.js';
import type { Service } from './store.js';
import { RecordWriter } from './wire.js';

export class ReverseIndex {
  /** Built PTR answers by reverse name. */
  readonly ptr = new Map<string, Answer>();
  /** PTR names each service (`namespace/name`) contributed to. */
  private readonly owned = new Map<string, string[]>();
  /** PTR targets per reverse name and owning service. */
  private readonly targets = new Map<string, Map<string, string[]>>();

  constructor(
    /** The forward zone targets are named in (the first, longest, one). */
    private readonly forwardZone: ZoneInfo,
    /** The reverse zone a reverse name falls in, if the plugin serves one. */
    private readonly reverseZoneOf: (name: string) => ZoneInfo | undefined,
    private readonly ttl: number,
  ) {}

  get size(): number {
    return this.ptr.size;
  }

  /** Replaces the PTR names of one service; `service` undefined withdraws them. */
  refresh(key: string, service: Service | undefined): void {
    for (const name of this.owned.get(key) ?? []) {
      const targets = this.targets.get(name);
      targets?.delete(key);
      this.set(name, targets);
    }
    this.owned.delete(key);
    if (service) this.add(key, service);
  }

  private add(key: string, service: Service): void {
    const base = baseName(service, this.forwardZone);
    const targets = new Map<string, string[]>();
    const add = (ip: string, target: string): void => {
      const name = reverseName(ip);
      if (!name || this.reverseZoneOf(name) === undefined) return;
      const list = targets.get(name);
      if (list) {
        if (!list.includes(target)) list.push(target);
      } else targets.set(name, [target]);
    };
    if (service.type === 'ClusterSetIP') for (const ip of service.ips) add(ip, base);
    for (const family of [service.v4, service.v6]) {
      for (const [cluster, data] of family.clusters) {
        for (const record of data.records) add(record.ip, service.type === 'Headless' ? `${record.hostname}.${cluster}.${base}` : `${cluster}.${base}`);
      }
    }
    const owned: string[] = [];
    for (const [name, list] of targets) {
      let byService = this.targets.get(name);
      if (!byService) this.targets.set(name, (byService = new Map()));
      byService.set(key, list);
      this.set(name, byService);
      owned.push(name);
    }
    this.owned.set(key, exact(owned));
  }

  private set(name: string, byService: Map<string, string[]> | undefined): void {
    if (!byService || byService.size === 0) {
      this.ptr.delete(name);
      this.targets.delete(name);
      return;
    }
    const writer = new RecordWriter(this.ttl);
    for (const list of byService.values()) for (const target of list) writer.ptr(target);
    this.ptr.set(name, positive(writer, null, null));
  }
}
