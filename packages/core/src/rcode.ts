/**
 * DNS response codes (RFC 1035 §4.1.1, RFC 6891 §9) as plain numbers, and CoreDNS's rule for
 * who writes the reply. Handlers return these.
 */
export const Rcode = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
  BADVERS: 16,
} as const;

export type RcodeName = keyof typeof Rcode;

const rcodeNames: readonly string[] = (() => {
  const names: string[] = [];
  for (const [name, value] of Object.entries(Rcode)) names[value] = name;
  return names;
})();

/** `3` → `NXDOMAIN`; unknown codes print as `RCODE<n>` the way miekg/dns does. */
export function rcodeToString(rcode: number): string {
  return rcodeNames[rcode] ?? `RCODE${rcode}`;
}

/**
 * CoreDNS's `ClientWrite`: false for the four codes a handler returns *without* writing a reply
 * (SERVFAIL, REFUSED, FORMERR, NOTIMP). The caller, ultimately the server, then writes it.
 */
export function clientWrote(rcode: number): boolean {
  return rcode !== Rcode.SERVFAIL && rcode !== Rcode.REFUSED && rcode !== Rcode.FORMERR && rcode !== Rcode.NOTIMP;
}
