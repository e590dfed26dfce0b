/** Records as one line of text each, for comparing sections regardless of order. */
import type { Answer } from 'dns-packet';
import type { Reply } from '@foghorn/testkit';

function name(n: string): string {
  return n === '.' ? '.' : `${n}.`;
}

/** `owner. TTL TYPE RDATA`, names absolute, TXT quoted. */
export function show(rr: Answer): string {
  const r = rr as Answer & { ttl: number; data: unknown };
  const d = r.data as Record<string, unknown>;
  let data: string;
  switch (r.type) {
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      data = name(r.data as string);
      break;
    case 'MX':
      data = `${String(d.preference)} ${name(d.exchange as string)}`;
      break;
    case 'SRV':
      data = `${String(d.priority)} ${String(d.weight)} ${String(d.port)} ${name(d.target as string)}`;
      break;
    case 'SOA':
      data = `${name(d.mname as string)} ${name(d.rname as string)} ${[d.serial, d.refresh, d.retry, d.expire, d.minimum].join(' ')}`;
      break;
    case 'TXT':
      data = (r.data as Buffer[]).map((b) => JSON.stringify(b.toString())).join(' ');
      break;
    case 'CAA':
      data = `${String(d.flags)} ${String(d.tag)} ${String(d.value)}`;
      break;
    case 'RRSIG':
      data = `${String(d.typeCovered)} ${String(d.algorithm)} ${String(d.labels)} ${String(d.originalTTL)} ${String(d.keyTag)} ${name(d.signersName as string)}`;
      break;
    case 'NSEC':
      data = `${name(d.nextDomain as string)} ${(d.rrtypes as string[]).join(' ')}`;
      break;
    case 'DS':
      data = JSON.stringify({ keyTag: d.keyTag, algorithm: d.algorithm, digestType: d.digestType, digest: (d.digest as Buffer).toString('hex') });
      break;
    default:
      data = typeof r.data === 'string' ? r.data : JSON.stringify(r.data);
  }
  return `${name(r.name)} ${r.ttl} ${r.type} ${data}`;
}

/** A reply's sections as sorted lines. */
export function sections(reply: Reply): { answer: string[]; ns: string[]; extra: string[] } {
  const lines = (rrs: Answer[] | undefined): string[] => (rrs ?? []).filter((rr) => rr.type !== 'OPT').map(show).sort();
  return { answer: lines(reply.answers), ns: lines(reply.authorities), extra: lines(reply.additionals) };
}
