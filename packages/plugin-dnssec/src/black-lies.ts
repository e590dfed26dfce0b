/**
 * NSEC "black lies" (draft-valsorda-dnsop-black-lies, CoreDNS's `plugin/dnssec/black_lies.go`):
 * denial of existence without a zone to walk. The NSEC for a name that does not exist, or lacks
 * the asked type, claims the name exists with every type but the one asked, and that the next
 * name is its own first child, `\000.name`: it covers no other name, so it can be made on the
 * fly for any query and reveals nothing of the zone. NXDOMAIN so becomes NODATA.
 */
const T = { A: 1, NS: 2, SOA: 6, HINFO: 13, MX: 15, TXT: 16, AAAA: 28, LOC: 29, SRV: 33, CERT: 37, DS: 43, SSHFP: 44, RRSIG: 46, NSEC: 47, DNSKEY: 48, TLSA: 52, HIP: 55, OPENPGPKEY: 61, SPF: 99 } as const;

/** dns-packet's names of the bitmaps' types; it has none for OPENPGPKEY and writes `UNKNOWN_61`. */
const typeNames: ReadonlyMap<number, string> = new Map(Object.entries(T).map(([name, n]) => [n, n === T.OPENPGPKEY ? `UNKNOWN_${n}` : name]));

/** CoreDNS's three bitmaps, in its order, as dns-packet type names. */
const names = (numbers: readonly number[]): readonly string[] => numbers.map((n) => typeNames.get(n)!);
const delegationBitmap = names([T.A, T.NS, T.HINFO, T.TXT, T.AAAA, T.LOC, T.SRV, T.CERT, T.SSHFP, T.RRSIG, T.NSEC, T.TLSA, T.HIP, T.OPENPGPKEY, T.SPF]);
const zoneBitmap = names([T.A, T.HINFO, T.TXT, T.AAAA, T.LOC, T.SRV, T.CERT, T.SSHFP, T.RRSIG, T.NSEC, T.TLSA, T.HIP, T.OPENPGPKEY, T.SPF]);
const apexBitmap = names([T.A, T.NS, T.SOA, T.HINFO, T.MX, T.TXT, T.AAAA, T.LOC, T.SRV, T.CERT, T.SSHFP, T.RRSIG, T.NSEC, T.DNSKEY, T.TLSA, T.HIP, T.OPENPGPKEY, T.SPF]);

/** What the NSEC denies. */
export enum Denial {
  /** NXDOMAIN or NODATA: the asked type is left out of the bitmap. */
  Negative,
  /** A referral without DS: the NSEC at the zone cut proves there is no DS (RFC 4035 §3.1.4). */
  Delegation,
}

/** The NSEC rdata of a black lie for `owner` (lower-case, no trailing dot, as dns-packet writes names). */
export interface BlackLie {
  readonly nextDomain: string;
  readonly rrtypes: readonly string[];
}

/**
 * The NSEC for `owner` in `zone` (CoreDNS's `nsec`): the apex keeps the apex types, a zone cut
 * or a DS question the delegation types, any other name the zone types; for a denial, the asked
 * type `qtype` is taken out unless NSEC itself was asked. Names are lower-case, without the
 * trailing dot.
 */
export function blackLie(owner: string, zone: string, qtype: number, denial: Denial): BlackLie {
  const ownerFqdn = owner === '.' ? '.' : `${owner}.`;
  let bitmap: readonly string[];
  if (ownerFqdn === zone) bitmap = apexBitmap;
  else if (denial === Denial.Delegation || qtype === T.DS) bitmap = delegationBitmap;
  else bitmap = zoneBitmap;
  if (denial === Denial.Negative && qtype !== T.NSEC) {
    const asked = typeNames.get(qtype);
    if (asked !== undefined && bitmap.includes(asked)) bitmap = bitmap.filter((type) => type !== asked);
  }
  let nextDomain: string;
  if (denial === Denial.Delegation && owner !== '.') {
    // `sub\000.example.org`: just past the cut and every name under it.
    const dot = owner.indexOf('.');
    nextDomain = dot < 0 ? `${owner}\u0000` : `${owner.slice(0, dot)}\u0000${owner.slice(dot)}`;
  } else {
    nextDomain = owner === '.' ? '\u0000' : `\u0000.${owner}`;
  }
  return { nextDomain, rrtypes: bitmap };
}
