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

  constructor(routes: readonly Route[]) {
    this.byZone = new Map(routes.map((route) => [route.zone, route]));
    this.root = this.byZone.get('.');
  }

  get zones(): string[] {
    return [...this.byZone.keys()].sort();
  }

  /** The route for a lower-cased, fully qualified name, or undefined (REFUSED). */
  match(qname: string, qtype: number): Route | undefined {
    let found: Route | undefined;
    let name = qname;
    // Walk from the full name towards the root: "a.b.c." → "b.c." → "c.", without the root.
    while (name !== '.' && name !== '') {
      const route = this.byZone.get(name);
      if (route !== undefined) {
        if (qtype !== TYPE_DS) return route;
        found = route;
      }
      const dot = name.indexOf('.');
      name = name.slice(dot + 1);
    }
    return found ?? this.root;
  }
}
