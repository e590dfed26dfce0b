/**
 * Zone routing for one listener (docs/compatibility.md, "Accept filter"): the most specific zone wins, DS goes to the
 * most general matching zone so a parent served here can answer it, and `.` is the last resort.
 *
 * Several server blocks may serve one zone when all but one have a *view* (CoreDNS's views): the
 * first of them in Corefile order whose view passes the query serves it, and when none does the
 * query goes on to the next less specific zone. A zone served by one block without a view and
 * without *metadata* (every zone of a Corefile without those plugins) is routed as before, at
 * the cost of one property read.
 */
import type { ServerBlock, Token } from '@foghorn/corefile';
import type { MetadataCollector, View } from './capability.js';
import { TYPE_DS } from './constants.js';
import type { Handler } from './plugin.js';
import type { Request } from './request.js';

/** A zone served on a listener and the chain of its server block. */
export interface Route {
  readonly zone: string;
  /** Null when the block has no handler: its queries are REFUSED. */
  readonly chain: Handler | null;
  /** The server block key that put the zone here, and its block: what `foghorn -query` shows. */
  readonly key?: Token;
  readonly block?: ServerBlock;
  /** The block's view: the block serves only the queries it passes. */
  readonly view?: View;
  /** The block's metadata collector (the *metadata* plugin), run before the view and the chain. */
  readonly metadata?: MetadataCollector;
}

/** The routes of one zone: the one route of a plain zone, or the blocks to choose among in order. */
interface ZoneRoutes {
  readonly zone: string;
  readonly first: Route;
  /** Null when the zone has one route with neither view nor metadata: nothing to run before its chain. */
  readonly choices: readonly Route[] | null;
}

/**
 * Up to this many zones (besides `.`) a query's name is compared with each of them; past it the
 * name's suffixes are looked up instead. A listener serves a handful of zones, and comparing the
 * name's tail with each costs less than building and hashing a string per label of the name.
 */
const SCAN_LIMIT = 8;

/** Immutable zone → route table; a reload swaps the whole table at once. */
export class RouteTable {
  private readonly byZone: Map<string, ZoneRoutes>;
  private readonly root: ZoneRoutes | undefined;
  /** Every zone but the root, longest first, while there are at most {@link SCAN_LIMIT}. */
  private readonly scan: readonly ZoneRoutes[] | null;
  /** The lengths of the zones: a suffix of another length is not looked up (no slice, no hash). */
  private readonly lengths: ReadonlySet<number>;

  constructor(routes: readonly Route[]) {
    const grouped = new Map<string, Route[]>();
    for (const route of routes) {
      const same = grouped.get(route.zone);
      if (same === undefined) grouped.set(route.zone, [route]);
      else same.push(route);
    }
    this.byZone = new Map(
      [...grouped].map(([zone, same]) => {
        const first = same[0]!;
        const plain = same.length === 1 && first.view === undefined && first.metadata === undefined;
        return [zone, { zone, first, choices: plain ? null : same }];
      }),
    );
    this.root = this.byZone.get('.');
    const zoned = [...this.byZone.values()].filter((entry) => entry.zone !== '.');
    this.scan = zoned.length <= SCAN_LIMIT ? zoned.sort((a, b) => b.zone.length - a.zone.length) : null;
    this.lengths = new Set(routes.map((route) => route.zone.length));
  }

  get zones(): string[] {
    return [...this.byZone.keys()].sort();
  }

  /**
   * The route for a lower-cased, fully qualified name, or undefined (REFUSED). With the query,
   * views choose among the blocks of a zone, and the query gets the chosen block's zone and
   * metadata; without it, the first block of each zone is taken.
   */
  match(qname: string, qtype: number, req?: Request): Route | undefined {
    let found: ZoneRoutes | undefined;
    let route: Route | undefined;
    const scan = this.scan;
    if (scan !== null) {
      // Longest zone first: the first match is the most specific one, the last the most general.
      for (let i = 0; i < scan.length; i++) {
        const entry = scan[i]!;
        const zone = entry.zone;
        const under = qname.length === zone.length ? qname === zone : qname.length > zone.length && qname.charCodeAt(qname.length - zone.length - 1) === 0x2e && qname.endsWith(zone);
        if (under) {
          const chosen = entry.choices === null ? entry.first : choose(entry.choices, req);
          if (chosen === undefined) continue;
          if (qtype !== TYPE_DS) return chosen;
          found = entry;
          route = chosen;
        }
      }
    } else {
      // Walk from the full name towards the root: "a.b.c." → "b.c." → "c.", without the root.
      for (let start = 0; start < qname.length - 1; ) {
        if (this.lengths.has(qname.length - start)) {
          const entry = this.byZone.get(start === 0 ? qname : qname.slice(start));
          if (entry !== undefined) {
            const chosen = entry.choices === null ? entry.first : choose(entry.choices, req);
            if (chosen !== undefined) {
              if (qtype !== TYPE_DS) return chosen;
              found = entry;
              route = chosen;
            }
          }
        }
        const dot = qname.indexOf('.', start);
        if (dot < 0) break;
        start = dot + 1;
      }
    }
    if (route === undefined) {
      const root = this.root;
      if (root === undefined) return undefined;
      return root.choices === null ? root.first : choose(root.choices, req);
    }
    // DS: the blocks of less specific zones were tried after this one; give the query back its state.
    if (found!.choices !== null && req !== undefined) enter(route, req);
    return route;
  }
}

/**
 * The first block of a zone that serves the query (CoreDNS's `ServeDNS` loop over a zone's
 * configs): a block without handlers refuses at once, the others collect the query's metadata
 * and pass it through their view. Undefined when no view passes.
 */
function choose(choices: readonly Route[], req: Request | undefined): Route | undefined {
  if (req === undefined) return choices[0];
  for (let i = 0; i < choices.length; i++) {
    const route = choices[i]!;
    if (route.chain === null) return route;
    enter(route, req);
    const view = route.view;
    if (view === undefined || view.filter(req)) return route;
  }
  return undefined;
}

/** The query as the route's block sees it: its zone, and its metadata (none without a collector). */
function enter(route: Route, req: Request): void {
  req.zone = route.zone;
  req.metadata = route.metadata === undefined ? undefined : route.metadata.collect(req);
}
