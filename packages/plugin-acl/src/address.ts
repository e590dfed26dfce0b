/**
 * IP addresses and networks as fixed-width words, so matching a client against a rule is a few
 * integer ANDs instead of string or BigInt work. The accepted syntax follows Go's
 * `net.ParseCIDR`, which CoreDNS's acl uses: dotted IPv4 without leading zeros, IPv6 with at most
 * one `::` (standing for at least one zero group) and an optional dotted IPv4 tail, no zone
 * (`%eth0`) in a network.
 */

/** An address: one 32-bit word for IPv4, four for IPv6 (most significant first). */
export type AddressWords = Uint32Array;

/** A network from a `net` token. */
export interface Network {
  /** The token as CoreDNS saw it: a plain address gets `/32` or `/128` appended. */
  readonly text: string;
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** Prefix length in bits. */
  readonly bits: number;
  /** The network address with host bits cleared (Go masks `192.168.1.5/24` to `192.168.1.0`). */
  readonly words: AddressWords;
  /** Per-word masks, the same length as `words`. */
  readonly masks: AddressWords;
}

const ipv4Octet = /^(?:0|[1-9]\d{0,2})$/;
const hexGroup = /^[0-9a-fA-F]{1,4}$/;
/** Go's `dtoi` gives up at this many digits' worth of value; any longer prefix is invalid anyway. */
const maxPrefixDigits = 3;

/** Parses dotted IPv4 into a 32-bit number, or undefined. */
function parseIpv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!ipv4Octet.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** 16-bit groups of one side of `::`; a dotted IPv4 is allowed as the last group when `tailOk`. */
function parseGroups(text: string, tailOk: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (tailOk && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4Number(part);
      if (v4 === undefined) return undefined;
      groups.push(Math.floor(v4 / 0x10000), v4 & 0xffff);
    } else {
      if (!hexGroup.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseIpv6Words(text: string): AddressWords | undefined {
  const ellipsis = text.indexOf('::');
  let groups: number[];
  if (ellipsis < 0) {
    const all = parseGroups(text, true);
    if (all === undefined || all.length !== 8) return undefined;
    groups = all;
  } else {
    if (text.indexOf('::', ellipsis + 1) >= 0) return undefined;
    const head = parseGroups(text.slice(0, ellipsis), false);
    const tail = parseGroups(text.slice(ellipsis + 2), true);
    if (head === undefined || tail === undefined) return undefined;
    const zeros = 8 - head.length - tail.length;
    // `::` must stand for at least one zero group (Go: "the :: must expand to at least one field of zeros").
    if (zeros < 1) return undefined;
    groups = [...head, ...new Array<number>(zeros).fill(0), ...tail];
  }
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i++) words[i] = groups[2 * i]! * 0x10000 + groups[2 * i + 1]!;
  return words;
}

/** Parses an IP address (no zone) into words, or undefined when it is not one. */
export function parseAddress(text: string): AddressWords | undefined {
  if (text.includes(':')) return parseIpv6Words(text);
  const v4 = parseIpv4Number(text);
  return v4 === undefined ? undefined : Uint32Array.of(v4);
}

/** `::ffff:0:0/96` holds IPv4 addresses written as IPv6. */
function isV4Mapped(words: AddressWords): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

/**
 * The client's address as rules see it. A zone (`fe80::1%eth0`) is cut off, and an IPv4-mapped
 * IPv6 address counts as IPv4, as Go's `net.IP.To4` makes it for CoreDNS.
 */
export function parseClientAddress(text: string): AddressWords | undefined {
  const percent = text.indexOf('%');
  const words = parseAddress(percent >= 0 ? text.slice(0, percent) : text);
  if (words !== undefined && words.length === 4 && isV4Mapped(words)) return Uint32Array.of(words[3]!);
  return words;
}

/**
 * Parses a `net` token: a CIDR, or a plain address that CoreDNS widens to `/32` or `/128`.
 * Returns undefined when Go's `net.ParseCIDR` would refuse it; `text` is then what the error
 * quotes (see {@link normalizeNetwork}).
 */
export function parseNetwork(token: string): Network | undefined {
  const text = normalizeNetwork(token);
  const slash = text.indexOf('/');
  const addressText = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (!/^\d+$/.test(bitsText) || bitsText.length > maxPrefixDigits) return undefined;
  const words = parseAddress(addressText);
  if (words === undefined) return undefined;
  const bits = Number(bitsText);
  const family = words.length === 1 ? 4 : 6;
  if (bits > words.length * 32) return undefined;
  const masks = new Uint32Array(words.length);
  for (let i = 0; i < words.length; i++) {
    const inWord = Math.min(32, Math.max(0, bits - i * 32));
    // `-1 << 32` is `-1` in JavaScript, so a whole word is spelled out.
    masks[i] = inWord === 0 ? 0 : inWord === 32 ? 0xffffffff : (-1 << (32 - inWord)) >>> 0;
    words[i] = (words[i]! & masks[i]!) >>> 0;
  }
  return { text, family, bits, words, masks };
}

/** CoreDNS's `normalize`: a token without `/` gets `/128` when it has a colon, else `/32`. */
export function normalizeNetwork(token: string): string {
  if (token.includes('/')) return token;
  return token.includes(':') ? `${token}/128` : `${token}/32`;
}

/** Whether `address` (from {@link parseClientAddress}) is inside `network`; families never mix. */
export function networkContains(network: Network, address: AddressWords): boolean {
  const { words, masks } = network;
  if (address.length !== words.length) return false;
  for (let i = 0; i < words.length; i++) {
    if (((address[i]! & masks[i]!) >>> 0) !== words[i]) return false;
  }
  return true;
}
