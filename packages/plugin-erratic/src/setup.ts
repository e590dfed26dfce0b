import { errorAt, errorMessage, parseDuration, ReadinessProbes } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { Erratic } from './handler.js';

/** What `erratic { ... }` configures: every Nth query is dropped, delayed, truncated (0: never). */
export interface ErraticOptions {
  readonly drop: number;
  readonly delay: number;
  readonly truncate: number;
  /** How long a delayed query waits, in milliseconds. */
  readonly delayMs: number;
  /** Undocumented in CoreDNS too: 30 A records instead of one, to test large replies. */
  readonly large: boolean;
}

/** Go's `strconv.ParseInt(text, 10, 32)`, with its error texts, at the argument's position. */
function parseInt32(token: Token): number {
  const text = token.text;
  if (!/^[+-]?\d+$/.test(text)) throw errorAt(token, `strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (value < -(2 ** 31) || value > 2 ** 31 - 1) throw errorAt(token, `strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** An AMOUNT: a 32-bit integer, not negative. */
function amount(token: Token): number {
  const value = parseInt32(token);
  if (value < 0) throw errorAt(token, `illegal amount value given ${JSON.stringify(token.text)}`);
  return value;
}

/**
 * Parses `erratic { drop [AMOUNT]; truncate [AMOUNT]; delay [AMOUNT [DURATION]] }` as CoreDNS's
 * `plugin/erratic/setup.go`, quirks included: drop defaults to 2 and is switched off when delay
 * or truncate is given without a `drop AMOUNT` line (a bare `drop` keeps the default but does
 * not count as given); every `erratic` line of a block adds to the same settings.
 */
export function parseErratic(c: Controller): ErraticOptions {
  let drop = 2;
  let delay = 0;
  let truncate = 0;
  let delayMs = 0;
  let large = false;
  let dropGiven = false;
  while (c.next()) {
    while (c.nextBlock()) {
      const option = c.val();
      switch (option) {
        case 'drop': {
          const args = c.remainingArgTokens();
          if (args.length > 1) throw c.argError();
          if (args.length === 0) continue;
          drop = amount(args[0]!);
          dropGiven = true;
          break;
        }
        case 'delay': {
          const args = c.remainingArgTokens();
          if (args.length > 2) throw c.argError();
          delay = 2;
          delayMs = 100;
          if (args.length === 0) continue;
          delay = amount(args[0]!);
          if (args[1] !== undefined) {
            try {
              delayMs = parseDuration(args[1].text);
            } catch (error) {
              throw errorAt(args[1], errorMessage(error));
            }
          }
          break;
        }
        case 'truncate': {
          const args = c.remainingArgTokens();
          if (args.length > 1) throw c.argError();
          truncate = 2;
          if (args.length === 0) continue;
          truncate = amount(args[0]!);
          break;
        }
        case 'large':
          large = true;
          break;
        default:
          throw c.error(`unknown property '${option}'`);
      }
    }
  }
  if ((delay > 0 || truncate > 0) && !dropGiven) drop = 0;
  return { drop, delay, truncate, delayMs, large };
}

/** Parses the directive, adds the handler (it ignores the rest of the chain) and its readiness. */
export function setup(c: Controller): void {
  const erratic = new Erratic(parseErratic(c));
  c.addHandler(() => erratic);
  c.provide(ReadinessProbes, { name: c.directive, ready: () => erratic.ready() });
}
