/**
 * kubernetes: parsing `kubernetes [ZONES...] { ... }` with CoreDNS v1.14.7's options, defaults
 * and error texts (plugin/kubernetes/setup.go `ParseStanza`), plus Foghorn's `manifests DIR`
 * source. Pure: reads only the tokens.
 */
import { checkDirectory, errOnce, errorMessage, fallthroughZones, parseDuration, readableFile, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { LabelSelector } from './selector.js';

export type PodMode = 'disabled' | 'insecure' | 'verified';

/** Where the objects come from. */
export type SourceOptions =
  | {
      readonly kind: 'kubernetes';
      /** `endpoint URL...`: only the first is used. */
      readonly endpoint?: string;
      /** `tls CERT KEY CACERT` for `endpoint`. */
      readonly tls?: { readonly cert: string; readonly key: string; readonly ca: string };
      /** `kubeconfig FILE [CONTEXT]`: wins over `endpoint`/`tls`. */
      readonly kubeconfig?: string;
      readonly context?: string;
      /** `apiserver_qps`, 0 = the client's default. */
      readonly qps: number;
      /** `apiserver_burst`, 0 = the client's default. */
      readonly burst: number;
      /** `apiserver_max_inflight`, 0 = unlimited. */
      readonly maxInflight: number;
    }
  | { readonly kind: 'manifests'; readonly dir: string };

/** One block's `kubernetes` configuration. */
export interface KubernetesOptions {
  /** The plugin's zones (normalised, reverse zones expanded); the block's when none are given. */
  readonly zones: readonly string[];
  /** The first zone that is not a reverse zone: where PTR targets live. */
  readonly primaryZone: string;
  readonly source: SourceOptions;
  /** `namespaces`: only these are served; null = all. */
  readonly namespaces: readonly string[] | null;
  /** `namespace_labels`, normalised; null = none. */
  readonly namespaceLabels: string | null;
  /** `labels`, normalised; null = none. */
  readonly labels: string | null;
  readonly pods: PodMode;
  readonly endpointPodNames: boolean;
  readonly ttl: number;
  /** `noendpoints`: no EndpointSlice watch. */
  readonly noEndpoints: boolean;
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
  readonly ignoreEmptyService: boolean;
  /** `multicluster ZONES...`: each one of `zones`. */
  readonly multicluster: readonly string[];
  readonly startupTimeoutMs: number;
  /** `zonal`: headless services also answer `TOPOZONE.pin|prefer._zone.SVC.NS.svc.ZONE`. */
  readonly zonal: boolean;
}

export const defaultTtl = 5;
export const defaultStartupTimeoutMs = 5000;

/** CoreDNS `dnsutil.IsReverse`: a name under in-addr.arpa. or ip6.arpa. */
export function isReverseZone(zone: string): boolean {
  return zone.endsWith('in-addr.arpa.') || zone.endsWith('ip6.arpa.');
}

/** Go's `strconv.Atoi` over a Corefile argument, with its error text. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** Go's `strconv.ParseFloat(s, 32)` for the forms a Corefile would hold. */
function parseFloat32(text: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) && !/^[+-]?(inf|infinity|nan)$/i.test(text)) {
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  return Number(text.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));
}

/** Parses the block's `kubernetes` (once per block). */
export function parseKubernetes(c: Controller): KubernetesOptions {
  let seen = 0;
  let zones: string[] = [];
  let endpoint: string | undefined;
  let tls: { cert: string; key: string; ca: string } | undefined;
  let kubeconfig: string | undefined;
  let context: string | undefined;
  let manifests: string | undefined;
  let qps = 0;
  let burst = 0;
  let maxInflight = 0;
  let namespaces: string[] | null = null;
  let namespaceLabels: string | null = null;
  let labels: string | null = null;
  let pods: PodMode = 'disabled';
  let endpointPodNames = false;
  let ttl = defaultTtl;
  let noEndpoints = false;
  let fallthrough: string[] | null = null;
  let ignoreEmptyService = false;
  let multicluster: string[] = [];
  let startupTimeoutMs = defaultStartupTimeoutMs;
  let zonal = false;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    const args = c.remainingArgs();
    zones = zonesFromArgs(c, args);
    if (!zones.some((zone) => !isReverseZone(zone))) throw c.error('non-reverse zone name must be used');
    while (c.nextBlock()) {
      const property = c.val();
      const argTokens = c.remainingArgTokens();
      const args = argTokens.map((token) => token.text);
      switch (property) {
        case 'endpoint_pod_names':
          if (args.length > 0) throw c.argError();
          endpointPodNames = true;
          break;
        case 'pods':
          if (args.length !== 1) throw c.argError();
          if (args[0] !== 'disabled' && args[0] !== 'insecure' && args[0] !== 'verified') {
            throw c.error(`wrong value for pods: ${args[0]},  must be one of: disabled, verified, insecure`);
          }
          pods = args[0];
          break;
        case 'namespaces':
          if (args.length === 0) throw c.argError();
          namespaces = [...new Set([...(namespaces ?? []), ...args])];
          break;
        case 'endpoint':
          if (args.length === 0) throw c.argError();
          if (args.length > 1) c.log.warning(`Multiple endpoints have been deprecated, only the first specified endpoint '${args[0]}' is used`);
          endpoint = args[0]!;
          break;
        case 'tls':
          if (args.length !== 3) throw c.argError();
          tls = { cert: args[0]!, key: args[1]!, ca: args[2]! };
          break;
        case 'labels':
        case 'namespace_labels': {
          if (args.length === 0) throw c.argError();
          const text = args.join(' ');
          let normalised: string;
          try {
            normalised = LabelSelector.parse(text).toString();
          } catch (error) {
            const what = property === 'labels' ? 'label' : 'namespace_label';
            throw c.error(`unable to parse ${what} selector value: '${text}': ${errorMessage(error)}`);
          }
          if (property === 'labels') labels = normalised;
          else namespaceLabels = normalised;
          break;
        }
        case 'fallthrough':
          fallthrough = fallthroughZones(c, args);
          break;
        case 'ttl': {
          if (args.length === 0) throw c.argError();
          let value: number;
          try {
            value = atoi(args[0]!);
          } catch (error) {
            throw c.error(errorMessage(error));
          }
          if (value < 0 || value > 3600) throw c.error(`ttl must be in range [0, 3600]: ${value}`);
          ttl = value;
          break;
        }
        case 'noendpoints':
          if (args.length !== 0) throw c.argError();
          noEndpoints = true;
          break;
        case 'upstream':
          // Removed from CoreDNS in 1.7 (ExternalNames are resolved through the server itself),
          // but OpenShift's DNS operator still writes it: accepted and ignored, with a warning,
          // so those Corefiles keep working when the image is swapped.
          c.log.warning(`${c.token().file}:${c.token().line}:${c.token().column} - 'upstream' is ignored: ExternalName targets are always resolved through this server`);
          break;
        case 'zonal':
          if (args.length !== 0) throw c.argError();
          zonal = true;
          break;
        case 'ignore':
          // CoreDNS accepts a bare `ignore` silently; so do we.
          if (args.length > 0) {
            if (args[0] !== 'empty_service') throw c.error(`unable to parse ignore value: '${args[0]}'`);
            ignoreEmptyService = true;
          }
          break;
        case 'kubeconfig':
          if (args.length !== 1 && args.length !== 2) throw c.argError();
          readableFile(argTokens[0]!, 'kubeconfig');
          kubeconfig = args[0]!;
          context = args[1];
          break;
        case 'multicluster':
          multicluster = args.length === 0 ? [] : zonesFromArgs(c, args);
          break;
        case 'startup_timeout':
          if (args.length === 0) throw c.argError();
          try {
            startupTimeoutMs = parseDuration(args[0]!);
          } catch (error) {
            throw c.error(`failed to parse startup_timeout: ${args[0]}, ${errorMessage(error)}`);
          }
          break;
        case 'apiserver_qps': {
          if (args.length !== 1) throw c.argError();
          let value: number;
          try {
            value = parseFloat32(args[0]!);
          } catch (error) {
            throw c.error(`invalid apiserver_qps ${JSON.stringify(args[0])}: ${errorMessage(error)}`);
          }
          if (value < 0) throw c.error('apiserver_qps must be >= 0');
          qps = value;
          break;
        }
        case 'apiserver_burst':
        case 'apiserver_max_inflight': {
          if (args.length !== 1) throw c.argError();
          let value: number;
          try {
            value = atoi(args[0]!);
          } catch (error) {
            throw c.error(`invalid ${property} ${JSON.stringify(args[0])}: ${errorMessage(error)}`);
          }
          if (value < 0) throw c.error(`${property} must be >= 0`);
          if (property === 'apiserver_burst') burst = value;
          else maxInflight = value;
          break;
        }
        case 'manifests':
          if (args.length !== 1) throw c.argError();
          checkDirectory(argTokens[0]!, 'manifests directory');
          manifests = args[0]!;
          break;
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
  }
  if (namespaces !== null && namespaceLabels !== null) throw c.error('namespaces and namespace_labels cannot both be set');
  for (const zone of multicluster) {
    if (!zones.includes(zone)) throw c.error(`is not authoritative for the multicluster zone ${zone} (authoritative zones: [${zones.join(' ')}])`);
  }
  if (zonal && noEndpoints) throw c.error('zonal requires the endpoint cache; remove noendpoints');
  if (manifests !== undefined && (endpoint !== undefined || kubeconfig !== undefined || tls !== undefined)) {
    throw c.error("manifests cannot be combined with 'endpoint', 'tls' or 'kubeconfig': objects come from one source");
  }
  const source: SourceOptions =
    manifests !== undefined
      ? { kind: 'manifests', dir: manifests }
      : {
          kind: 'kubernetes',
          ...(endpoint !== undefined ? { endpoint } : {}),
          ...(tls !== undefined ? { tls } : {}),
          ...(kubeconfig !== undefined ? { kubeconfig } : {}),
          ...(context !== undefined ? { context } : {}),
          qps,
          burst,
          maxInflight,
        };
  return {
    zones,
    primaryZone: zones.find((zone) => !isReverseZone(zone))!,
    source,
    namespaces,
    namespaceLabels,
    labels,
    pods,
    endpointPodNames,
    ttl,
    noEndpoints,
    fallthrough,
    ignoreEmptyService,
    multicluster,
    startupTimeoutMs,
    zonal,
  };
}
