/**
 * The two Route 53 API calls CoreDNS's *route53* makes, as signed REST requests
 * (API version 2013-04-01): `ListHostedZonesByName` to check a zone at startup and
 * `ListResourceRecordSets`, followed page by page (`IsTruncated`, `NextRecordName`,
 * `NextRecordType`, `NextRecordIdentifier`), to read a hosted zone. Replies are small XML
 * documents of a fixed shape, read with a few regular expressions.
 */
import http from 'node:http';
import https from 'node:https';
import { signGet } from './sigv4.js';
import type { AwsCredentials } from './sigv4.js';

/** The public endpoint; `aws_endpoint` replaces it. */
export const defaultEndpoint = 'https://route53.amazonaws.com';
/** Route 53 is a global service, signed for us-east-1 in the aws partition. */
const SIGNING_REGION = 'us-east-1';
const API = '/2013-04-01';
/** Each call's budget. */
const TIMEOUT_MS = 10_000;

/** One resource record set as the API lists it (alias record sets have no records). */
export interface RecordSet {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly values: readonly string[];
}

/** An error reply of the API: `NoSuchHostedZone: No hosted zone found with ID: Z1`. */
export class Route53Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character data: the five entities and numeric references. */
function unxml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return entities[ref] ?? all;
  });
}

/** The text of every `<tag>…</tag>` in `xml`. */
function all(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);
}

function one(xml: string, tag: string): string | undefined {
  const text = all(xml, tag)[0];
  return text === undefined ? undefined : unxml(text);
}

/** The record sets of one `ListResourceRecordSets` reply and where the next page starts. */
export function parseRecordSets(xml: string): { sets: RecordSet[]; next?: { name: string; type?: string; identifier?: string } } {
  const sets = all(xml, 'ResourceRecordSet').map((set) => ({
    name: one(set, 'Name') ?? '',
    type: one(set, 'Type') ?? '',
    ttl: Number(one(set, 'TTL') ?? 0),
    values: all(set, 'Value').map(unxml),
  }));
  if (one(xml, 'IsTruncated') !== 'true') return { sets };
  const name = one(xml, 'NextRecordName') ?? '';
  const type = one(xml, 'NextRecordType');
  const identifier = one(xml, 'NextRecordIdentifier');
  return { sets, next: { name, ...(type ? { type } : {}), ...(identifier ? { identifier } : {}) } };
}

export class Route53Client {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(
    endpoint: string,
    private readonly credentials: () => AwsCredentials,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.base = new URL(endpoint);
    this.agent = this.base.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  /** `ListHostedZonesByName` from `name` and `id`: fails when the API refuses them (no such zone, no access). */
  async checkHostedZone(name: string, id: string): Promise<void> {
    await this.get(`${API}/hostedzonesbyname`, { dnsname: name, hostedzoneid: id });
  }

  /** Every record set of hosted zone `id`, page after page of at most 1000. */
  async listRecordSets(id: string): Promise<RecordSet[]> {
    const out: RecordSet[] = [];
    const query: Record<string, string> = { maxitems: '1000' };
    for (;;) {
      const page = parseRecordSets(await this.get(`${API}/hostedzone/${encodeURIComponent(id)}/rrset`, query));
      out.push(...page.sets);
      if (!page.next) return out;
      query.name = page.next.name;
      if (page.next.type) query.type = page.next.type;
      else delete query.type;
      if (page.next.identifier) query.identifier = page.next.identifier;
      else delete query.identifier;
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private get(path: string, query: Record<string, string>): Promise<string> {
    const url = new URL(`${this.base.pathname.replace(/\/$/, '')}${path}`, this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers = signGet(url, this.credentials(), SIGNING_REGION, 'route53', this.now());
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.get(url, { agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) return resolve(body);
          reject(new Route53Error(res.statusCode ?? 0, one(body, 'Code') ?? `HTTP ${res.statusCode}`, one(body, 'Message') ?? body.slice(0, 200)));
        });
      });
      req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no reply from ${url.origin} within ${TIMEOUT_MS / 1000}s`)));
      req.on('error', reject);
    });
  }
}
