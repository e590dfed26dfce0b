/**
 * Setup of *dns64* (CoreDNS v1.14.7's `plugin/dns64/setup.go`):
 *
 *     dns64 [PREFIX]
 *     dns64 {
 *         prefix PREFIX
 *         translate_all
 *         allow_ipv4
 *     }
 */
import { errorAt, errorMessage } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { formatIp, parseCidr } from '@foghorn/core/wire';
import type { Cidr } from '@foghorn/core/wire';
import { Dns64 } from './handler.js';
import { createDns64Metrics } from './metrics.js';

/** The well-known prefix of RFC 6052 §2.1. */
export const DEFAULT_PREFIX = '64:ff9b::/96';

export interface Dns64Options {
  /** The IPv6 prefix the IPv4 address is embedded in (RFC 6052 §2.2): /32, /40, /48, /56, /64 or /96. */
  readonly prefix: Cidr;
  /** Translate even when the AAAA reply has AAAA records (not RFC 6147 §5.1.1). */
  readonly translateAll: boolean;
  /** Translate for clients that asked over IPv4 too; by default only IPv6 clients get AAAA synthesised. */
  readonly allowIpv4: boolean;
}

/**
 * Parses the directive as CoreDNS's `dns64Parse` walks its tokens, quirk included: a line with
 * a PREFIX argument ends that occurrence, so a block after it is not read as options (only a
 * `prefix X` line in it counts, read as another PREFIX argument). That is said in a warning.
 */
export function parseDns64(c: Controller): Dns64Options {
  let prefix = parseCidr(DEFAULT_PREFIX);
  let translateAll = false;
  let allowIpv4 = false;
  while (c.next()) {
    const args = c.remainingArgTokens();
    if (args.length === 1) {
      prefix = parsePrefix(args[0]!);
      warnIfBlockFollows(c, args[0]!);
      continue;
    }
    if (args.length > 0) throw c.argError();
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'prefix':
          if (!c.nextArg()) throw c.argError();
          prefix = parsePrefix(c.token());
          break;
        case 'translate_all':
          translateAll = true;
          break;
        case 'allow_ipv4':
          allowIpv4 = true;
          break;
        default:
          throw c.error(`unknown property '${c.val()}'`);
      }
    }
  }
  return { prefix, translateAll, allowIpv4 };
}

/**
 * CoreDNS's `parsePrefix`: Go's `net.ParseCIDR`, then an IPv6 network whose length is a multiple
 * of 8 from 32 to 96 (RFC 6052 §2.2). CoreDNS's texts; the position is Foghorn's.
 */
function parsePrefix(token: Token): Cidr {
  let cidr: Cidr;
  try {
    cidr = parseCidr(token.text);
  } catch (error) {
    throw errorAt(token, errorMessage(error));
  }
  // Go prints the network with %q: its masked address and length, quoted.
  const shown = JSON.stringify(`${formatIp(cidr.network)}/${cidr.bits}`);
  if (cidr.network.length !== 16) throw errorAt(token, `invalid netmask ${cidr.network.length * 8} IPv6 address: ${shown}`);
  if (cidr.bits % 8 !== 0 || cidr.bits < 32 || cidr.bits > 96) throw errorAt(token, `invalid prefix length ${shown}`);
  return cidr;
}

/** `dns64 PREFIX {`: CoreDNS reads none of the block's options; say so rather than drop them unseen. */
function warnIfBlockFollows(c: Controller, prefix: Token): void {
  const at = c.tokens.indexOf(prefix);
  const following = c.tokens[at + 1];
  if (following?.text !== '{' || following.file !== prefix.file || following.line !== prefix.line) return;
  c.log.warning(
    `${prefix.file}:${prefix.line}: the block after 'dns64 ${prefix.text}' is not read, as in CoreDNS (only a 'prefix' line in it counts): ` +
      `put the prefix in the block as 'prefix ${prefix.text}'`,
  );
}

/** Parses the directive, registers the metric and adds the handler. */
export function setup(c: Controller): void {
  const options = parseDns64(c);
  const metrics = createDns64Metrics(c.registry);
  c.addHandler((next) => new Dns64(options, metrics, next));
}
