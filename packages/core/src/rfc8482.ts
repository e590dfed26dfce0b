/**
 * RFC 8482 ("Providing Minimal-Sized Responses to DNS Queries That Have QTYPE=ANY"): the one
 * synthesized record a server may answer an ANY query with instead of every RRset it holds.
 */
import type { HInfoAnswer } from 'dns-packet';

/** TTL of the synthesized HINFO; RFC 8482 §4.2 suggests a long one, CoreDNS uses 8482. */
export const RFC8482_TTL = 8482;

/**
 * The synthesized HINFO of RFC 8482 §4.2 for `name`, with the texts and TTL of CoreDNS's *any*
 * plugin (`plugin/any/any.go`): CPU `ANY obsoleted`, OS `See RFC 8482`, class IN. A fresh object
 * per call, because the reply that carries it may be changed by plugins on the way out.
 */
export function rfc8482Hinfo(name: string): HInfoAnswer {
  return { type: 'HINFO', name, class: 'IN', ttl: RFC8482_TTL, data: { cpu: 'ANY obsoleted', os: 'See RFC 8482' } };
}
