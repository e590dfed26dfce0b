/**
 * The metadata the kubernetes plugin publishes (CoreDNS's plugin/kubernetes/metadata.go), for
 * the *metadata* plugin of its block: what the query name says (`kubernetes/namespace`,
 * `kubernetes/service`, ...) and who asks (`kubernetes/client-namespace`, ... with `pods
 * verified`). Nothing is computed until a plugin reads a label; the name's parse is kept for the
 * query's other labels.
 */
import { matchZone } from '@foghorn/core';
import type { MetadataProvider, Request } from '@foghorn/core';
import type { HandlerState } from './handler.js';
import type { KubernetesOptions } from './options.js';
import { parseRequest } from './resolve.js';
import type { ZoneInfo } from './resolve.js';
import { canonicalIp } from './store.js';
import type { Pod } from './store.js';

const prefix = 'kubernetes/';
const clientLabel = 'client-label/';

type Parsed = ReturnType<typeof parseRequest>;

export class KubernetesMetadata implements MetadataProvider {
  private readonly zoneNames: readonly string[];
  /** The last query whose name was parsed, and the parse ({@link parsed}). */
  private lastReq: Request | undefined;
  private lastParse: Parsed | undefined;
  private lastZone: ZoneInfo | undefined;

  constructor(
    private readonly state: HandlerState,
    private readonly zones: readonly ZoneInfo[],
    private readonly options: KubernetesOptions,
  ) {
    this.zoneNames = zones.map((zone) => zone.name);
  }

  metadata(req: Request, label: string): string | undefined {
    if (!label.startsWith(prefix)) return undefined;
    const key = label.slice(prefix.length);
    if (key.startsWith('client-')) return this.client(req, key);
    const zone = this.zoneOf(req);
    if (zone === undefined) return undefined;
    const r = this.lastParse!;
    // parse.go's `errInvalidRequest`, the only error parseRequest returns.
    if (r === null) return key === 'parse-error' ? 'invalid query name' : undefined;
    switch (key) {
      case 'port-name':
        return r.port;
      case 'protocol':
        return r.protocol;
      case 'endpoint':
        return r.endpoint;
      case 'cluster':
        return zone.multicluster ? r.cluster : undefined;
      case 'zone':
        return this.options.zonal ? r.zone : undefined;
      case 'service':
        return r.service;
      case 'namespace':
        return r.namespace;
      case 'kind':
        return r.podOrSvc;
      default:
        return undefined;
    }
  }

  /** `client-namespace`, `client-pod-name`, `client-label/KEY`: from the pod with the client's address (`pods verified`). */
  private client(req: Request, key: string): string | undefined {
    const pod = this.podWithIp(req.remoteAddress);
    if (pod === undefined) return undefined;
    if (key === 'client-namespace') return pod.namespace;
    if (key === 'client-pod-name') return pod.name;
    if (key.startsWith(clientLabel)) return pod.labels?.[key.slice(clientLabel.length)];
    return undefined;
  }

  /** autopath.go `podWithIP`: the first pod with the address, only when pods are verified. */
  private podWithIp(ip: string): Pod | undefined {
    const store = this.state.store;
    if (this.options.pods !== 'verified' || store === null) return undefined;
    return store.pods.atIp(canonicalIp(ip))[0];
  }

  /** The kubernetes zone of the query's name, parsing the name once per query; undefined outside them. */
  private zoneOf(req: Request): ZoneInfo | undefined {
    if (this.lastReq !== req) {
      this.lastReq = req;
      const name = matchZone(this.zoneNames, req.qname);
      this.lastZone = name === undefined ? undefined : this.zones.find((zone) => zone.name === name);
      this.lastParse = this.lastZone === undefined ? null : parseRequest(req.qname, this.lastZone.name, this.lastZone.multicluster, this.options.zonal);
    }
    return this.lastZone;
  }
}
