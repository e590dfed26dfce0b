import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { errorAt, ListenAddresses } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';

/** One `bind` line after parsing. */
export interface BindOptions {
  /** Addresses and interface names to listen on. */
  readonly include: string[];
  /** Addresses and interface names removed from this line's addresses (`except`). */
  readonly except: string[];
}

type Interfaces = ReturnType<typeof networkInterfaces>;

/**
 * Parses every `bind` line of the block: `bind ADDRESS|IFACE... [{ except ADDRESS|IFACE... }]`.
 * Pure: tokens → options, so the setup table test calls it directly.
 */
export function parseBind(c: Controller, interfaces: Interfaces = networkInterfaces()): BindOptions[] {
  const lines: BindOptions[] = [];
  // Names are checked at their own token, so the error points at the bad one.
  const names = (tokens: Token[]): string[] =>
    tokens.map((token) => {
      if (isIP(token.text) === 0 && !interfaces[token.text]) {
        throw errorAt(token, `not a valid IP address or interface name: "${token.text}"`);
      }
      return token.text;
    });
  while (c.next()) {
    const include = names(c.remainingArgTokens());
    if (include.length === 0) throw c.error('at least one address or interface name is expected');
    const except: string[] = [];
    while (c.nextBlock()) {
      if (c.val() !== 'except') throw c.error(`invalid option "${c.val()}"`);
      const args = names(c.remainingArgTokens());
      if (args.length === 0) throw c.argError();
      except.push(...args);
    }
    lines.push({ include, except });
  }
  return lines;
}

/**
 * Turns names into addresses: an interface name becomes all its IPs (IPv6 link-local ones with
 * `%iface`); `except` removes addresses from its own line only (docs/compatibility.md, "Duplicates and listeners").
 */
export function resolveBindAddresses(lines: readonly BindOptions[], interfaces: Interfaces = networkInterfaces()): string[] {
  const resolve = (name: string): string[] => {
    if (isIP(name) !== 0) return [name];
    const addresses = interfaces[name];
    if (!addresses) throw new Error(`not a valid IP address or interface name: "${name}"`);
    return addresses.map((a) => (a.family === 'IPv6' && a.address.toLowerCase().startsWith('fe80:') ? `${a.address}%${name}` : a.address));
  };
  const result: string[] = [];
  for (const line of lines) {
    const excluded = new Set(line.except.flatMap(resolve));
    for (const address of line.include.flatMap(resolve)) if (!excluded.has(address)) result.push(address);
  }
  return [...new Set(result)];
}

/** Sets the block's listen addresses; adds no handler (not on the query path). */
export function setup(c: Controller): void {
  const interfaces = networkInterfaces();
  const addresses = resolveBindAddresses(parseBind(c, interfaces), interfaces);
  for (const address of addresses) c.provide(ListenAddresses, address);
}
