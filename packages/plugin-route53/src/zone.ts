/**
 * A hosted zone's record sets turned into zone data (CoreDNS's `updateZoneFromRRS`): each record
 * as an RFC 1035 line, names unescaped from Route 53's octal escapes, served by *file*'s zone
 * lookup. A record that does not parse (a type Foghorn cannot read) is skipped with a warning.
 */
import { errorMessage, isSubdomain } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { parseRR } from '@foghorn/core/wire';
import { ZoneData } from '@foghorn/core/wire';
import type { RecordSet } from './client.js';

/**
 * Route 53's octal escapes (`\052` for `*`) back to characters, allowing what CoreDNS allows:
 * a-z, 0-9, `-`, `.`, and `*` only as the first character (CoreDNS's `maybeUnescape`).
 */
export function maybeUnescape(s: string): string {
  let out = '';
  for (;;) {
    const i = s.indexOf('\\');
    if (i < 0) return out + s;
    out += s.slice(0, i);
    const digits = s.slice(i + 1, i + 4);
    if (digits.length < 3) throw new Error(`invalid escape sequence: '\\${s.slice(i + 1)}'`);
    // Go's strconv.ParseInt(digits, 8, 8): octal, at most 127.
    if (!/^[0-7]{3}$/.test(digits) || parseInt(digits, 8) > 127) throw new Error(`invalid escape sequence: '\\${digits}'`);
    const c = String.fromCharCode(parseInt(digits, 8));
    if (c === '*') {
      if (out.length !== 0) throw new Error("`*' only supported as wildcard (leftmost label)");
    } else if (!/[a-z0-9.-]/.test(c)) {
      throw new Error(`invalid character: \\${parseInt(digits, 8).toString(8).padStart(3, '0')}`);
    }
    out += c;
    s = s.slice(i + 4);
  }
}

/** One record of a set as a zone-file line, with CoreDNS's error texts. */
function recordLine(set: RecordSet, value: string): string {
  let name: string;
  let rdata: string;
  try {
    name = maybeUnescape(set.name);
  } catch (error) {
    throw new Error(`failed to unescape \`${set.name}' name: ${errorMessage(error)}`);
  }
  try {
    rdata = maybeUnescape(value);
  } catch (error) {
    throw new Error(`failed to unescape \`${value}' value: ${errorMessage(error)}`);
  }
  const line = `${name} ${set.ttl} IN ${set.type} ${rdata}`;
  try {
    parseRR(line);
  } catch (error) {
    throw new Error(`failed to parse resource record: ${errorMessage(error)}`);
  }
  return line;
}

function fqdn(name: string): string {
  return name.endsWith('.') ? name.toLowerCase() : `${name.toLowerCase()}.`;
}

/**
 * The zone `origin` (lower case, fully qualified) from `sets`, or null when it cannot be served
 * (no SOA at its apex: the lookup then fails as CoreDNS's does for a zone without SOA).
 */
export function buildZone(origin: string, sets: readonly RecordSet[], log: Logger): ZoneData | null {
  // `$ORIGIN .`: names in rdata without a trailing dot are absolute, as miekg/dns's NewRR reads them.
  const lines = ['$ORIGIN .'];
  for (const set of sets) {
    for (const value of set.values) {
      let line: string;
      try {
        line = recordLine(set, value);
      } catch (error) {
        log.warning(`Failed to process resource record set: ${errorMessage(error)}`);
        continue;
      }
      // Records outside the zone are never answered (CoreDNS stores and never finds them).
      if (isSubdomain(fqdn(line.slice(0, line.indexOf(' '))), origin)) lines.push(line);
    }
  }
  try {
    return ZoneData.parse(lines.join('\n'), origin, `route53 ${origin}`);
  } catch {
    return null;
  }
}
