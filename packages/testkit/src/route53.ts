/**
 * A stand-in for the AWS Route 53 API (REST, version 2013-04-01), for the tests of the
 * *route53* plugin: AWS itself cannot be reached from a test, and the usual stand-in (Python's
 * moto) is not installable here. It serves the two calls the plugin makes:
 *
 * - `GET /2013-04-01/hostedzonesbyname?dnsname=&hostedzoneid=`: the zone, or `NoSuchHostedZone`;
 * - `GET /2013-04-01/hostedzone/ID/rrset?maxitems=&name=&type=&identifier=`: the record sets in
 *   Route 53's order (names compared with their labels reversed, then types), at most `maxitems`
 *   (and at most `pageSize`) per page, with `IsTruncated` and `NextRecordName`/`NextRecordType`.
 *
 * Every request must carry a SigV4 `Authorization` header naming the expected access key and an
 * `x-amz-date` header; otherwise the reply is 403 `MissingAuthenticationToken` or
 * `InvalidClientTokenId`, as AWS answers. The signature itself is not verified.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A record set as the API lists it. Names keep Route 53's octal escapes (`\052` for `*`). */
export interface FakeRecordSet {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly values: readonly string[];
}

export interface FakeRoute53 {
  /** `http://127.0.0.1:PORT`, for `aws_endpoint`. */
  readonly url: string;
  /** Requests served, by call: `rrset`, `hostedzonesbyname`, `denied`. */
  readonly calls: Record<string, number>;
  /** Adds or replaces hosted zone `id`, named `name`, with `sets`. */
  setZone(id: string, name: string, sets: readonly FakeRecordSet[]): void;
  /** Stops listening (the port stays reserved for {@link start}). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Route 53's order: names by their labels from the root, then types. */
function order(a: { name: string; type: string }, b: { name: string; type: string }): number {
  const ka = a.name.toLowerCase().replace(/\.$/, '').split('.').reverse().join('.');
  const kb = b.name.toLowerCase().replace(/\.$/, '').split('.').reverse().join('.');
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
}

function errorReply(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(`<?xml version="1.0"?>\n<ErrorResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>fake</RequestId></ErrorResponse>`);
}

/** Starts the stand-in on 127.0.0.1; requests must be signed with `accessKeyId`. */
export async function startRoute53(options: { accessKeyId: string; pageSize?: number }): Promise<FakeRoute53> {
  const zones = new Map<string, { name: string; sets: FakeRecordSet[] }>();
  const calls: Record<string, number> = { rrset: 0, hostedzonesbyname: 0, denied: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://route53');
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('AWS4-HMAC-SHA256 ') || req.headers['x-amz-date'] === undefined) {
      calls.denied = (calls.denied ?? 0) + 1;
      return errorReply(res, 403, 'MissingAuthenticationToken', 'Missing Authentication Token');
    }
    if (!auth.includes(`Credential=${options.accessKeyId}/`) || !/SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/.test(auth)) {
      calls.denied = (calls.denied ?? 0) + 1;
      return errorReply(res, 403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    }
    if (req.method === 'GET' && url.pathname === '/2013-04-01/hostedzonesbyname') {
      calls.hostedzonesbyname = (calls.hostedzonesbyname ?? 0) + 1;
      const id = url.searchParams.get('hostedzoneid') ?? '';
      const zone = zones.get(id);
      if (!zone) return errorReply(res, 404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
      res.writeHead(200, { 'content-type': 'text/xml' });
      return res.end(`<?xml version="1.0"?>\n<ListHostedZonesByNameResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><HostedZones><HostedZone><Id>/hostedzone/${xml(id)}</Id><Name>${xml(zone.name)}</Name><CallerReference>fake</CallerReference><ResourceRecordSetCount>${zone.sets.length}</ResourceRecordSetCount></HostedZone></HostedZones><DNSName>${xml(url.searchParams.get('dnsname') ?? '')}</DNSName><HostedZoneId>${xml(id)}</HostedZoneId><IsTruncated>false</IsTruncated><MaxItems>100</MaxItems></ListHostedZonesByNameResponse>`);
    }
    const rrset = /^\/2013-04-01\/hostedzone\/([^/]+)\/rrset$/.exec(url.pathname);
    if (req.method === 'GET' && rrset) {
      calls.rrset = (calls.rrset ?? 0) + 1;
      const id = decodeURIComponent(rrset[1]!);
      const zone = zones.get(id);
      if (!zone) return errorReply(res, 404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
      const max = Math.min(Number(url.searchParams.get('maxitems') ?? 300), options.pageSize ?? 300);
      const sorted = [...zone.sets].sort(order);
      const name = url.searchParams.get('name');
      const type = url.searchParams.get('type') ?? '';
      const from = name === null ? 0 : sorted.findIndex((set) => order(set, { name, type }) >= 0);
      const page = from < 0 ? [] : sorted.slice(from, from + max);
      const rest = from < 0 ? undefined : sorted[from + max];
      const sets = page
        .map((set) => `<ResourceRecordSet><Name>${xml(set.name)}</Name><Type>${xml(set.type)}</Type><TTL>${set.ttl}</TTL><ResourceRecords>${set.values.map((v) => `<ResourceRecord><Value>${xml(v)}</Value></ResourceRecord>`).join('')}</ResourceRecords></ResourceRecordSet>`)
        .join('');
      const next = rest ? `<IsTruncated>true</IsTruncated><NextRecordName>${xml(rest.name)}</NextRecordName><NextRecordType>${xml(rest.type)}</NextRecordType>` : '<IsTruncated>false</IsTruncated>';
      res.writeHead(200, { 'content-type': 'text/xml' });
      return res.end(`<?xml version="1.0"?>\n<ListResourceRecordSetsResponse xmlns="https://route53.amazonaws.com/doc/2013-04-01/"><ResourceRecordSets>${sets}</ResourceRecordSets>${next}<MaxItems>${max}</MaxItems></ListResourceRecordSetsResponse>`);
    }
    errorReply(res, 404, 'UnknownOperationException', `${req.method} ${url.pathname}`);
  });
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(0);
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setZone(id, name, sets) {
      zones.set(id, { name, sets: [...sets] });
    },
    stop,
    async start() {
      await listen(port);
    },
    async close() {
      if (server.listening) await stop();
    },
  };
}
