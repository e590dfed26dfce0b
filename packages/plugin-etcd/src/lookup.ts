/**
 * Answers from SkyDNS services, as CoreDNS's `plugin/backend_lookup.go` builds them for every
 * `ServiceBackend`: A/AAAA/TXT follow CNAMEs inside the zone (and ask the rest of the chain for
 * targets outside it), SRV and MX synthesise target names for address hosts and put addresses in
 * the additional section, NS lives at `ns.dns.ZONE`, the zone apex at `apex.dns.ZONE`.
 */
import type { Answer, Packet } from 'dns-packet';
import { Flags, isSubdomain, TYPE_A, TYPE_AAAA, TYPE_CNAME, TYPE_TXT } from '@foghorn/core';
import { formatIp, fqdn } from '@foghorn/core/wire';
import { domain, hostType, split255, targetOf, targetStrip } from './service.js';
import type { Service } from './service.js';

/** More CNAMEs than this in a chain and the chain is not followed further. */
const MAX_CNAME_CHAIN = 10;

/** Where services come from: the etcd backend of one query. */
export interface Backend {
  /** The services at `name` (lower case) for a query of `qtype`; throws {@link KeyNotFound} when there are none. */
  services(name: string, qtype: number, exact: boolean): Promise<readonly Service[]>;
  /** Asks the rest of the chain for `name` and `qtype` (CoreDNS's `upstream.Lookup`); undefined when it could not. */
  lookup(name: string, qtype: number): Promise<Packet | undefined>;
}

/** No key at the name: NXDOMAIN (CoreDNS's `errKeyNotFound`). */
export class KeyNotFound extends Error {
  constructor() {
    super('key not found');
  }
}

export interface Records {
  answer: Answer[];
  extra: Answer[];
  truncated: boolean;
}

type Follow = typeof TYPE_A | typeof TYPE_AAAA | typeof TYPE_TXT;

/** The zone apex's address records live at `apex.dns.ZONE`; without that key, at the zone itself. */
async function withApex(b: Backend, zone: string, name: string, qtype: number): Promise<readonly Service[]> {
  if (name !== zone) return b.services(name, qtype, false);
  try {
    return await b.services(`apex.dns.${zone === '.' ? '' : zone}`, qtype, false);
  } catch (error) {
    if (!(error instanceof KeyNotFound)) throw error;
  }
  return b.services(name, qtype, false);
}

function sameCname(a: Answer, b: Answer): boolean {
  return a.type === 'CNAME' && b.type === 'CNAME' && a.name.toLowerCase() === b.name.toLowerCase() && String(a.data).toLowerCase() === String(b.data).toLowerCase();
}

/**
 * A, AAAA or TXT records at `qname` (as asked; matched in lower case), CNAMEs followed: CoreDNS's
 * `A`, `AAAA` and `TXT`, which differ only in the record a service gives and where they look.
 */
export async function follow(b: Backend, zone: string, qname: string, qtype: Follow, previous: readonly Answer[] = []): Promise<Records> {
  const name = qname.toLowerCase();
  const services = qtype === TYPE_TXT ? await b.services(name, qtype, false) : await withApex(b, zone, name, qtype);
  const out: Records = { answer: [], extra: [], truncated: false };
  const seen = new Set<string>();
  for (const serv of services) {
    const { type, ip } = hostType(serv);
    if (type === TYPE_CNAME) {
      const target = fqdn(serv.host);
      // x CNAME x, or x CNAME (something below x): a loop, given the recursive search.
      if (isSubdomain(target.toLowerCase(), name)) continue;
      const cname: Answer = { type: 'CNAME', name: qname, class: 'IN', ttl: serv.ttl, data: target };
      if (previous.length > MAX_CNAME_CHAIN) continue;
      if (previous.some((r) => sameCname(r, cname))) continue;
      if (isSubdomain(target.toLowerCase(), zone)) {
        let next: Records;
        try {
          next = await follow(b, zone, target, qtype, [...previous, cname]);
        } catch {
          continue;
        }
        if (next.truncated) out.truncated = true;
        if (next.answer.length > 0) out.answer.push(cname, ...next.answer);
        continue;
      }
      // Outside the zone: the rest of the chain may know the target.
      const reply = await b.lookup(target, qtype);
      if (reply === undefined) continue;
      if (qtype !== TYPE_TXT && ((reply.flags ?? 0) & Flags.TC) !== 0) out.truncated = true;
      out.answer.push(cname, ...(reply.answers ?? []));
      continue;
    }
    if (qtype === TYPE_TXT) {
      if (type === TYPE_TXT && !seen.has(serv.text)) {
        seen.add(serv.text);
        out.answer.push({ type: 'TXT', name: qname, class: 'IN', ttl: serv.ttl, data: split255(serv.text) });
      }
      continue;
    }
    if (type === qtype && ip !== null && !seen.has(serv.host)) {
      seen.add(serv.host);
      out.answer.push({ type: qtype === TYPE_A ? 'A' : 'AAAA', name: qname, class: 'IN', ttl: serv.ttl, data: formatIp(ip) });
    }
  }
  return out;
}

/** An address record for a synthesised target name. */
function address(serv: Service, name: string, ip: Uint8Array, type: number): Answer {
  return { type: type === TYPE_A ? 'A' : 'AAAA', name, class: 'IN', ttl: serv.ttl, data: formatIp(ip) };
}

/** Addresses of a name target outside the zone, from the rest of the chain (CNAMEs of the AAAA reply left out). */
async function externalAddresses(b: Backend, target: string): Promise<Answer[]> {
  const out: Answer[] = [];
  const v4 = await b.lookup(target, TYPE_A);
  if (v4 !== undefined) out.push(...(v4.answers ?? []));
  const v6 = await b.lookup(target, TYPE_AAAA);
  if (v6 !== undefined) out.push(...(v6.answers ?? []).filter((r) => r.type !== 'CNAME'));
  return out;
}

/** Addresses of a name target inside the zone (A only, as CoreDNS). */
async function internalAddresses(b: Backend, zone: string, target: string): Promise<Answer[]> {
  try {
    return (await follow(b, zone, target, TYPE_A)).answer;
  } catch {
    return [];
  }
}

/** The key of CoreDNS's `isDuplicate` map: a name with a port, or a name with an address. */
function firstTime(seen: Set<string>, name: string, addr: string, port: number): boolean {
  const key = addr !== '' ? `${name}\0\0${addr}` : `${name}\0${port}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

/** SRV records, weights shared out within each priority; address hosts get a target named after their key. */
export async function srv(b: Backend, zone: string, qname: string, qtype: number): Promise<Records> {
  const services = await b.services(qname.toLowerCase(), qtype, false);
  const out: Records = { answer: [], extra: [], truncated: false };
  const totals = new Map<number, number>();
  for (const serv of services) totals.set(serv.priority, (totals.get(serv.priority) ?? 0) + (serv.weight !== 0 ? serv.weight : 100));
  const seen = new Set<string>();
  const looked = new Set<string>();
  for (const serv of services) {
    if (serv.port === -1) continue;
    const share = (100 / totals.get(serv.priority)!) * (serv.weight === 0 ? 100 : serv.weight);
    const weight = Math.max(1, Math.floor(share) & 0xffff);
    const { type, ip } = hostType(serv);
    if (type === TYPE_TXT) continue;
    if (type === TYPE_CNAME) {
      const target = targetOf(serv);
      out.answer.push({ type: 'SRV', name: qname, class: 'IN', ttl: serv.ttl, data: { priority: serv.priority & 0xffff, weight, port: serv.port & 0xffff, target } });
      if (looked.has(target)) continue;
      looked.add(target);
      if (!isSubdomain(target.toLowerCase(), zone)) out.extra.push(...(await externalAddresses(b, target)));
      else out.extra.push(...(await internalAddresses(b, zone, target)));
      continue;
    }
    const target = targetStrip(domain(serv.key), serv.targetStrip);
    const port = serv.port & 0xffff;
    if (firstTime(seen, target, '', port)) out.answer.push({ type: 'SRV', name: qname, class: 'IN', ttl: serv.ttl, data: { priority: serv.priority & 0xffff, weight, port, target } });
    if (firstTime(seen, target, serv.host, 0)) out.extra.push(address(serv, target, ip!, type));
  }
  return out;
}

/** MX records of the services marked `mail`; address hosts get an exchange named after their key. */
export async function mx(b: Backend, zone: string, qname: string, qtype: number): Promise<Records> {
  const services = await b.services(qname.toLowerCase(), qtype, false);
  const out: Records = { answer: [], extra: [], truncated: false };
  const seen = new Set<string>();
  const looked = new Set<string>();
  for (const serv of services) {
    if (!serv.mail) continue;
    const { type, ip } = hostType(serv);
    if (type === TYPE_CNAME) {
      const exchange = targetOf(serv);
      out.answer.push({ type: 'MX', name: qname, class: 'IN', ttl: serv.ttl, data: { preference: serv.priority & 0xffff, exchange } });
      if (looked.has(exchange)) continue;
      looked.add(exchange);
      if (!isSubdomain(exchange.toLowerCase(), zone)) out.extra.push(...(await externalAddresses(b, exchange)));
      else out.extra.push(...(await internalAddresses(b, zone, exchange)));
      continue;
    }
    if (type !== TYPE_A && type !== TYPE_AAAA) continue;
    const host = domain(serv.key);
    const exchange = targetStrip(host, serv.targetStrip);
    const preference = serv.priority & 0xffff;
    if (firstTime(seen, exchange, '', preference)) out.answer.push({ type: 'MX', name: qname, class: 'IN', ttl: serv.ttl, data: { preference, exchange } });
    // CoreDNS names this address after the unstripped key.
    if (firstTime(seen, host, serv.host, 0)) out.extra.push(address(serv, host, ip!, type));
  }
  return out;
}

/** The CNAME of the exact key, when its host is a name. */
export async function cname(b: Backend, qname: string, qtype: number): Promise<Answer[]> {
  const services = await b.services(qname.toLowerCase(), qtype, true);
  const serv = services[0];
  if (serv === undefined || hostType(serv).ip !== null) return [];
  return [{ type: 'CNAME', name: qname, class: 'IN', ttl: serv.ttl, data: fqdn(serv.host) }];
}

/** PTR records of the exact key's name hosts. */
export async function ptr(b: Backend, qname: string, qtype: number): Promise<Answer[]> {
  const services = await b.services(qname.toLowerCase(), qtype, true);
  const seen = new Set<string>();
  const out: Answer[] = [];
  for (const serv of services) {
    if (hostType(serv).ip !== null || seen.has(serv.host)) continue;
    seen.add(serv.host);
    out.push({ type: 'PTR', name: qname, class: 'IN', ttl: serv.ttl, data: fqdn(serv.host) });
  }
  return out;
}

/** The zone's NS records, from the address services under `ns.dns.ZONE`, each named after its key. */
export async function ns(b: Backend, zone: string, qname: string, qtype: number): Promise<Records> {
  const services = await b.services(`ns.dns.${zone === '.' ? '' : zone}`, qtype, false);
  const out: Records = { answer: [], extra: [], truncated: false };
  const seen = new Set<string>();
  for (const serv of services) {
    const { type, ip } = hostType(serv);
    if (type === TYPE_CNAME) throw new Error(`NS record must be an IP address: ${serv.host}`);
    if (ip === null) continue;
    const target = targetStrip(domain(serv.key), serv.targetStrip);
    out.extra.push(address(serv, target, ip, type));
    if (seen.has(target)) continue;
    seen.add(target);
    out.answer.push({ type: 'NS', name: qname, class: 'IN', ttl: serv.ttl, data: target });
  }
  return out;
}

/** The SOA CoreDNS makes up for a backend zone: serial now, minimum 30 s. */
export function soa(zone: string): Answer {
  const minimum = 30;
  const under = zone === '.' ? '' : zone;
  return {
    type: 'SOA',
    name: zone,
    class: 'IN',
    ttl: Math.min(minimum, 300),
    data: { mname: `ns.dns.${under}`, rname: `hostmaster.${under}`, serial: Math.floor(Date.now() / 1000) >>> 0, refresh: 7200, retry: 1800, expire: 86400, minimum },
  };
}
