/**
 * Zone routing for one listener (docs/compatibility.md, "Accept filter"): the most specific zone wins, DS goes to the
 * most general matching zone so a parent served here can answer it, and `.` is the last resort.
 */
import type { ServerBlock, Token } from '@foghorn/corefile';
import { TYPE_DS } from './constants.js';
import type { Handler } from './plugin.js';

/** A zone served on a listener and the chain of its server block. */
export interface Route {
  readonly zone: string;
  /** Null when the block has no handler: its queries are REFUSED. */
  readonly chain: Handler | null;
  /** The server block key that put the zone here, and its block: what `foghorn -query` shows. */
  readonly key?: Token;
  readonly block?: ServerBlock;
}

/**
 * Up to this many zones (besides `.`) a query's name is compared with each of them; past it the
 * name's suffixes are looked up instead. A listener serves a handful of zones, and comparing the
 * name's tail with each costs less than building and hashing a string per label of the name.
 */
const SCAN_LIMIT = 8;

/** Immutable zone → route table; a reload swaps the whole table at once. */
export class RouteTable {
  private readonly byZone: Map<string, Route>;
  private readonly root: Route | undefined;
  /** Every route but the root's, longest zone first, while there are at most {@link SCAN_LIMIT}. */
  private readonly scan: readonly Route[] | null;
  /** The lengths of the zones: a suffix of another length is not looked up (no slice, no hash). */
  private readonly lengths: ReadonlySet<number>;

  constructor(routes: readonly Route[]) {
    this.byZone = new Map(routes.map((route) => [route.zone, route]));
    this.root = this.byZone.get('.');
    const zoned = [...this.byZone.values()].filter((route) => route.zone !== '.');
    this.scan = zoned.length <= SCAN_LIMIT ? zoned.sort((a, b) => b.zone.length - a.zone.length) : null;
    this.lengths = new Set(routes.map((route) => route.zone.length));
  }

  get zones(): string[] {
    return [...this.byZone.keys()].sort();
  }

  /** The route for a lower-cased, fully qualified name, or undefined (REFUSED). */
  match(qname: string, qtype: number): Route | undefined {
    let found: Route | undefined;
    const scan = this.scan;
    if (scan !== null) {
      // Longest zone first: the first match is the most specific one, the last the most general.
      for (let i = 0; i < scan.length; i++) {
        const route = scan[i]!;
        const zone = route.zone;
        const under = qname.length === zone.length ? qname === zone : qname.length > zone.length && qname.charCodeAt(qname.length - zone.length - 1) === 0x2e && qname.endsWith(zone);
        if (under) {
          if (qtype !== TYPE_DS) return route;
          found = route;
        }
      }
      return found ?? this.root;
    }
    // Walk from the full name towards the root: "a.b.c." → "b.c." → "c.", without the root.
    for (let start = 0; start < qname.length - 1; ) {
      if (this.lengths.has(qname.length - start)) {
        const route = this.byZone.get(start === 0 ? qname : qname.slice(start));
        if (route !== undefined) {
          if (qtype !== TYPE_DS) return route;
          found = route;
        }
      }
      const dot = qname.indexOf('.', start);
      if (dot < 0) break;
      start = dot + 1;
    }
    return found ?? this.root;
  }
}
