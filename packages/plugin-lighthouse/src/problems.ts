/**
 * Objects the store cannot use as written: a ServiceImport with `type: 42`, an IP that is not
 * one, a slice without its labels, a null endpoint. The store's ingest rules (store.ts) skip
 * such fields or objects quietly, as Lighthouse's agent-facing code does; an operator still
 * needs to hear about them. {@link objectProblems} names each skipped field the way the store
 * reads it, and {@link ProblemLog} logs each bad object once (again only when its problems
 * change) and counts it, for both sources: the file for manifests, the resource for the API
 * server.
 */
import { isIP } from 'node:net';
import type { Logger } from '@foghorn/core';
import { mcsServiceNameLabel, mcsSourceClusterLabel } from '@foghorn/kube';
import type { KubeObject } from '@foghorn/kube';
import { labelSourceNamespace } from './store.js';
import type { ResourceName } from './store.js';


/** What the store ignores in `object`, one `field: reason` per problem; empty when it is clean. */
export function objectProblems(resource: ResourceName, object: KubeObject): string[] {
  const out: string[] = [];
  const metadata = asRecord(object.metadata);
  if (typeof metadata?.['name'] !== 'string' || metadata['name'] === '') out.push('metadata.name: missing');
  if (typeof metadata?.['namespace'] !== 'string' || metadata['namespace'] === '') out.push('metadata.namespace: missing');
  if (resource === 'serviceimports') importProblems(object, out);
  else if (resource === 'endpointslices') sliceProblems(object, out);
  return out;
}

function importProblems(object: KubeObject, out: string[]): void {
  // mcs-api v1beta1 moved the spec fields to the object's root (store.ts reads either place).
  const inSpec = asRecord(object['spec']);
  const spec = inSpec ?? (object as Record<string, unknown>);
  const at = inSpec ? 'spec.' : '';
  const type = spec['type'];
  if (type !== undefined && type !== 'ClusterSetIP' && type !== 'Headless') out.push(`${at}type: ${show(type)} is not ClusterSetIP or Headless (taken as ClusterSetIP)`);
  const ips = spec['ips'];
  if (ips !== undefined && ips !== null) {
    if (!Array.isArray(ips)) out.push(`${at}ips: ${show(ips)} is not a list (ignored)`);
    else ips.forEach((ip, i) => {
      if (typeof ip !== 'string' || isIP(ip) === 0) out.push(`${at}ips[${i}]: ${show(ip)} is not an IP address (ignored)`);
    });
  }
  portProblems(spec['ports'], `${at}ports`, out);
}

function sliceProblems(object: KubeObject, out: string[]): void {
  const labels = asRecord(asRecord(object.metadata)?.['labels']);
  let placed = true;
  for (const label of [mcsServiceNameLabel, labelSourceNamespace, mcsSourceClusterLabel]) {
    if (typeof labels?.[label] !== 'string' || labels[label] === '') {
      out.push(`metadata.labels["${label}"]: missing (slice ignored)`);
      placed = false;
    }
  }
  const namespace = object.metadata?.namespace;
  if (placed && namespace !== labels?.[labelSourceNamespace]) {
    out.push(`metadata.namespace: ${show(namespace)} differs from label "${labelSourceNamespace}" ${show(labels?.[labelSourceNamespace])} (slice ignored)`);
  }
  const addressType = object['addressType'];
  if (addressType !== undefined && addressType !== 'IPv4' && addressType !== 'IPv6') out.push(`addressType: ${show(addressType)} is not IPv4 or IPv6 (slice ignored)`);
  // `endpoints: null` is how the API server sends an empty list; only its entries can be wrong.
  const endpoints = object['endpoints'];
  if (endpoints !== undefined && endpoints !== null && !Array.isArray(endpoints)) out.push(`endpoints: ${show(endpoints)} is not a list (ignored)`);
  if (Array.isArray(endpoints)) {
    endpoints.forEach((value, i) => {
      const endpoint = asRecord(value);
      if (!endpoint) {
        out.push(`endpoints[${i}]: ${show(value)} is not an object (ignored)`);
        return;
      }
      const addresses = endpoint['addresses'];
      if (!Array.isArray(addresses)) out.push(`endpoints[${i}].addresses: ${show(addresses)} is not a list (endpoint ignored)`);
      else addresses.forEach((ip, j) => {
        if (typeof ip !== 'string' || isIP(ip) === 0) out.push(`endpoints[${i}].addresses[${j}]: ${show(ip)} is not an IP address (ignored)`);
      });
    });
  }
  portProblems(object['ports'], 'ports', out);
}

function portProblems(value: unknown, at: string, out: string[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    out.push(`${at}: ${show(value)} is not a list (ignored)`);
    return;
  }
  value.forEach((item, i) => {
    const port = asRecord(item);
    if (!port) out.push(`${at}[${i}]: ${show(item)} is not an object (ignored)`);
    else if (port['port'] !== undefined && (typeof port['port'] !== 'number' || !Number.isInteger(port['port']) || port['port'] < 0 || port['port'] > 65535)) {
      out.push(`${at}[${i}].port: ${show(port['port'])} is not a port number (taken as 0)`);
    }
  });
}

/** A short JSON rendering of a bad value for the log line. */
function show(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Counts a bad object (or an unreadable manifest document) by resource. */
export type ProblemCounter = (resource: ResourceName | 'manifests') => void;

/**
 * Logs each bad object once per origin (a manifest file, or a watched resource) and counts it;
 * an object is reported again only when its problems change, so rescans and relists stay quiet.
 * Holds one short string per bad object, dropped when the object goes or is fixed.
 */
export class ProblemLog {
  private readonly reported = new Map<string, Map<string, string>>();
  /** The problems of a relist under way, by origin, until its `replace`. */
  private readonly listing = new Map<string, Map<string, string>>();

  constructor(
    private readonly log: Logger,
    private readonly count: ProblemCounter = () => {},
  ) {}

  /** The complete content of `origin` (a file, a relist): reports what is new, forgets the rest. */
  replace(origin: string, objects: Iterable<readonly [ResourceName, KubeObject]>): void {
    const now = this.listing.get(origin) ?? new Map<string, string>();
    this.listing.delete(origin);
    this.collect(origin, objects, now);
    if (now.size > 0) this.reported.set(origin, now);
    else this.reported.delete(origin);
  }

  /** The first pages of a relist of `origin` (ObjectSink.part): reported as they come, complete at `replace`. */
  part(origin: string, objects: Iterable<readonly [ResourceName, KubeObject]>, first: boolean): void {
    let now = first ? undefined : this.listing.get(origin);
    if (now === undefined) this.listing.set(origin, (now = new Map()));
    this.collect(origin, objects, now);
  }

  /** Reports the objects' problems that `origin` had not reported yet, and notes them all in `now`. */
  private collect(origin: string, objects: Iterable<readonly [ResourceName, KubeObject]>, now: Map<string, string>): void {
    const before = this.reported.get(origin);
    for (const [resource, object] of objects) {
      const id = describe(resource, object);
      const problems = objectProblems(resource, object).join('; ');
      if (problems === '') continue;
      now.set(id, problems);
      if (before?.get(id) !== problems) this.report(origin, resource, id, problems);
    }
  }

  /** One object added or changed in `origin`. */
  upsert(origin: string, resource: ResourceName, object: KubeObject): void {
    const id = describe(resource, object);
    const problems = objectProblems(resource, object).join('; ');
    let known = this.reported.get(origin);
    if (problems === '') {
      known?.delete(id);
      return;
    }
    if (known?.get(id) === problems) return;
    if (!known) this.reported.set(origin, (known = new Map()));
    known.set(id, problems);
    this.report(origin, resource, id, problems);
  }

  /** One object removed from `origin`. */
  remove(origin: string, resource: ResourceName, object: KubeObject): void {
    this.reported.get(origin)?.delete(describe(resource, object));
  }

  /** An unreadable file or document: logged by the caller once per content, counted here. */
  unreadable(): void {
    this.count('manifests');
  }

  private report(origin: string, resource: ResourceName, id: string, problems: string): void {
    this.log.warning(`${origin}: ${id}: ${problems}`);
    this.count(resource);
  }
}

const kinds: Record<ResourceName, string> = { serviceimports: 'ServiceImport', endpointslices: 'EndpointSlice', gateways: 'Gateway', submariners: 'Submariner' };

function describe(resource: ResourceName, object: KubeObject): string {
  const metadata = asRecord(object.metadata);
  const name = typeof metadata?.['name'] === 'string' ? metadata['name'] : '';
  const namespace = typeof metadata?.['namespace'] === 'string' ? metadata['namespace'] : '';
  return `${kinds[resource]} ${namespace}/${name}`;
}
