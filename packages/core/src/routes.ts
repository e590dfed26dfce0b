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

/** Immutable zone → route table; a reload swaps the whole table at once. */
export class RouteTable {
  private readonly byZone: Map<string, Route>;
  private readonly root: Route | undefined;
  /** The lengths of the zones: a suffix of another length is not looked up (no slice, no hash). */
  private readonly lengths: ReadonlySet<number>;

  constructor(routes: readonly Route[]) {
    this.byZone = new Map(routes.map((route) => [route.zone, route]));
    this.root = this.byZone.get('.');
    this.lengths = new Set(routes.map((route) => route.zone.length));
  }

  get zones(): string[] {
    return [...this.byZone.keys()].sort();
  }

  /** The route for a lower-cased, fully qualified name, or undefined (REFUSED). */
  match(qname: string, qtype: number): Route | undefined {
    let found: Route | undefined;
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
