/**
 * Parsing `acl` and wiring the handler.
 *
 * ~~~ txt
 * acl [ZONES...] {
 *     ACTION [type QTYPE...] [net SOURCE...]
 * }
 * ~~~
 *
 * Every `acl` of a server block becomes one rule of a single handler, in file order, as CoreDNS's
 * setup reads all occurrences with one `for c.Next()` loop.
 */
import { errorAt, Views, zonesFromArgs } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { normalizeNetwork, parseNetwork } from './address.js';
import type { Network } from './address.js';
import { Acl } from './handler.js';
import { createAclMetrics } from './metrics.js';
import { anyQtype, qtypeNumber } from './qtype.js';

/** What a matching policy does with the query. */
export type AclAction = 'allow' | 'block' | 'filter' | 'drop';

/** One line of an `acl` block. */
export interface AclPolicy {
  readonly action: AclAction;
  /** Query type numbers it matches; null matches every type (`type *`, or no `type` section). */
  readonly qtypes: ReadonlySet<number> | null;
  /** Source networks it matches; null matches every address (`net *`, or no `net` section). */
  readonly networks: readonly Network[] | null;
}

/** One `acl` directive: the zones it guards and its policies, first match wins. */
export interface AclRule {
  /** Lower-case, fully qualified; the server block's zones when the line names none. */
  readonly zones: readonly string[];
  readonly policies: readonly AclPolicy[];
}

/** Every `acl` of a server block, in file order. */
export interface AclOptions {
  readonly rules: readonly AclRule[];
}

const actions: ReadonlySet<string> = new Set<AclAction>(['allow', 'block', 'filter', 'drop']);

/** CoreDNS's section keywords are matched without regard to case. */
function isSection(text: string): boolean {
  const lower = text.toLowerCase();
  return lower === 'type' || lower === 'net';
}

/** Reads `ACTION [type QTYPE...] [net SOURCE...]` after the action token. */
function parsePolicy(action: AclAction, args: readonly Token[]): AclPolicy {
  let qtypes: Set<number> | null = null;
  let networks: Network[] | null = null;
  let allNetworks = false;
  let i = 0;
  while (i < args.length) {
    const section = args[i]!;
    if (!isSection(section.text)) throw errorAt(section, `unexpected token ${JSON.stringify(section.text)}; expect 'type | net'`);
    const values: Token[] = [];
    for (i++; i < args.length && !isSection(args[i]!.text); i++) values.push(args[i]!);
    const name = section.text.toLowerCase();
    if (values.length === 0) throw errorAt(section, `no token specified in ${JSON.stringify(name)} section`);
    if (name === 'type') {
      qtypes ??= new Set();
      for (const value of values) {
        // `*` ends the section: CoreDNS stops reading (and checking) its tokens there.
        if (value.text === '*') {
          qtypes.add(anyQtype);
          break;
        }
        const qtype = qtypeNumber(value.text);
        if (qtype === undefined) throw errorAt(value, `unexpected token ${JSON.stringify(value.text)}; expect legal QTYPE`);
        qtypes.add(qtype);
      }
    } else {
      networks ??= [];
      for (const value of values) {
        if (value.text === '*') {
          allNetworks = true;
          break;
        }
        const network = parseNetwork(value.text);
        // CoreDNS quotes the token after widening a plain address to /32 or /128.
        if (network === undefined) throw errorAt(value, `illegal CIDR notation ${JSON.stringify(normalizeNetwork(value.text))}`);
        networks.push(network);
      }
    }
  }
  return {
    action,
    qtypes: qtypes === null || qtypes.has(anyQtype) ? null : qtypes,
    networks: allNetworks ? null : networks,
  };
}

/**
 * Reads every `acl` of the block into rules. Pure: the setup table test calls it directly.
 * Throws a Corefile error positioned at the offending token.
 */
export function parseAcl(c: Controller): AclOptions {
  const rules: AclRule[] = [];
  while (c.next()) {
    // CoreDNS skips a zone argument it cannot normalise ("silently ignores errors").
    const zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
    const policies: AclPolicy[] = [];
    while (c.nextBlock()) {
      const action = c.val().toLowerCase();
      if (!actions.has(action)) {
        throw c.error(`unexpected token ${JSON.stringify(c.val())}; expect 'allow', 'block', 'filter' or 'drop'`);
      }
      policies.push(parsePolicy(action as AclAction, c.remainingArgTokens()));
    }
    rules.push({ zones, policies });
  }
  return { rules };
}

/** Parses the block's `acl` directives and adds one handler for all of them. */
export function setup(c: Controller): void {
  const options = parseAcl(c);
  const metrics = createAclMetrics(c.registry);
  const log = c.log;
  c.addHandler((next) => new Acl(options.rules, metrics, log, next, c.use(Views)[0]?.name ?? ''));
}
