/**
 * Setup of *header* (CoreDNS v1.14.7's `plugin/header/setup.go` and `header.go`):
 *
 *     header {
 *         query|response set|clear FLAGS...
 *     }
 *
 * The selector-less `set|clear FLAGS...` of CoreDNS 1.12 and earlier is still read, as a
 * response rule, with the deprecation warning CoreDNS 1.12 logged (v1.13 removed it).
 */
import { errorAt, Flags } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { Header } from './handler.js';

/** One `set` or `clear` of one flag, in the order written. */
export interface Rule {
  readonly flag: 'aa' | 'ra' | 'rd';
  readonly state: boolean;
}

export interface HeaderRules {
  readonly query: readonly Rule[];
  readonly response: readonly Rule[];
}

/** Rules as two masks: `(flags & ~clear) | set`. */
export interface FlagMasks {
  readonly set: number;
  readonly clear: number;
}

const flagBits: Readonly<Record<Rule['flag'], number>> = { aa: Flags.AA, ra: Flags.RA, rd: Flags.RD };

/** The masks that apply `rules` in order, so the last rule on a flag wins (CoreDNS's `applyRules`). */
export function flagMasks(rules: readonly Rule[]): FlagMasks {
  let set = 0;
  let clear = 0;
  for (const rule of rules) {
    const bit = flagBits[rule.flag];
    if (rule.state) {
      set |= bit;
      clear &= ~bit;
    } else {
      clear |= bit;
      set &= ~bit;
    }
  }
  return { set, clear };
}

/**
 * Parses the block. As CoreDNS does, the first `header` of the block that has rules is the one
 * used, and a `header` with none at all is an argument error. CoreDNS's rule errors carry no
 * position; here each points at the token it is about.
 */
export function parseHeader(c: Controller): HeaderRules {
  while (c.next()) {
    const query: Rule[] = [];
    const response: Rule[] = [];
    while (c.nextBlock()) {
      const first = c.token();
      let selector = first.text.toLowerCase();
      let action: Token | undefined;
      switch (selector) {
        case 'set':
        case 'clear':
          c.log.warning(
            `The selector for header rule in line ${first.line} isn't explicit defined. Assume rule applies for selector 'response'. ` +
              'This syntax is deprecated. In future versions of CoreDNS the selector must be explicit defined.',
          );
          action = first;
          selector = 'response';
          break;
        case 'query':
        case 'response':
          if (c.nextArg()) action = c.token();
          break;
        default:
          throw c.error(`setting up rule: invalid selector=${selector} should be query or response`);
      }
      const rules = newRules(c, action, c.remainingArgTokens());
      (selector === 'response' ? response : query).push(...rules);
    }
    if (query.length > 0 || response.length > 0) return { query, response };
  }
  throw c.argError();
}

/** CoreDNS's `newRules`, its error texts prefixed with `setting up rule: ` as its parse does. */
function newRules(c: Controller, key: Token | undefined, args: readonly Token[]): Rule[] {
  if (key === undefined) throw c.error('setting up rule: no flag action provided');
  if (args.length < 1) throw c.error('setting up rule: invalid length for flags, at least one should be provided');
  const action = key.text.toLowerCase();
  if (action !== 'set' && action !== 'clear') throw errorAt(key, `setting up rule: unknown flag action=${action}, should be set or clear`);
  return args.map((arg) => {
    const flag = arg.text.toLowerCase();
    if (flag !== 'aa' && flag !== 'ra' && flag !== 'rd') throw errorAt(arg, `setting up rule: unknown/unsupported flag=${flag}`);
    return { flag, state: action === 'set' };
  });
}

/** Parses the block and adds the handler. */
export function setup(c: Controller): void {
  const rules = parseHeader(c);
  c.addHandler((next) => new Header(flagMasks(rules.query), flagMasks(rules.response), next));
}
