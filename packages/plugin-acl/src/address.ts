/**
 * *acl*'s networks: Go's `net.ParseCIDR` (core's `parseNetwork`), after CoreDNS's `normalize`, which
 * widens a plain address to a single-host network.
 */
import { parseNetwork as parseGoNetwork } from '@foghorn/core/wire';
import type { Network } from '@foghorn/core/wire';

export { networkContains, parseClientAddress } from '@foghorn/core/wire';
export type { AddressWords, Network } from '@foghorn/core/wire';

/**
 * Parses a `net` token: a CIDR, or a plain address that CoreDNS widens to `/32` or `/128`.
 * Returns undefined when Go's `net.ParseCIDR` would refuse it; `text` is then what the error
 * quotes (see {@link normalizeNetwork}).
 */
export function parseNetwork(token: string): Network | undefined {
  return parseGoNetwork(normalizeNetwork(token));
}

/** CoreDNS's `normalize`: a token without `/` gets `/128` when it has a colon, else `/32`. */
export function normalizeNetwork(token: string): string {
  if (token.includes('/')) return token;
  return token.includes(':') ? `${token}/128` : `${token}/32`;
}
