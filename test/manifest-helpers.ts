/**
 * Reading the Kubernetes manifests of examples/kubernetes with the `yaml` package, for the tests
 * that check they point at each other, and the stock Corefile they are checked against.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './cli-helpers.js';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** Every document of examples/kubernetes/FILE, parsed with no YAML error. */
export function loadManifests(file: string): Manifest[] {
  const documents = parseAllDocuments(readFileSync(join(repoRoot, 'examples', 'kubernetes', file), 'utf8'));
  return documents.map((document) => {
    assert.deepEqual(document.errors, [], `${file}: YAML errors`);
    return document.toJS() as Manifest;
  });
}

/** examples/kubernetes/FILE as text. */
export function readExample(file: string): string {
  return readFileSync(join(repoRoot, 'examples', 'kubernetes', file), 'utf8');
}

/** The one object of `kind` (and `name`, when given) among `manifests`. */
export function only<T = Manifest>(manifests: readonly Manifest[], kind: string, name?: string): Manifest & T {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  assert.equal(found.length, 1, `one ${kind}${name === undefined ? '' : ` ${name}`}`);
  return found[0] as Manifest & T;
}

// Shapes of the fields the tests read; the manifests are checked, not trusted.
export type Probe = { httpGet: { path: string; port: number | string } };
export type Container = {
  name: string;
  image: string;
  args: string[];
  ports: { name: string; containerPort: number; protocol: string }[];
  livenessProbe: Probe;
  readinessProbe: Probe;
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[]; add: string[] } };
  resources: { requests: { cpu: string; memory: string }; limits: { memory: string } };
};
export type PodSpec = {
  serviceAccountName: string;
  containers: Container[];
  volumes: { name: string; configMap: { name: string; items: { key: string; path: string }[] } }[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string }; sysctls?: unknown[] };
  [field: string]: unknown;
};
export type Deployment = {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    [field: string]: unknown;
  };
};
export type Service = { spec: { selector: Record<string, string>; clusterIP?: string; ports: { name: string; port: number; targetPort: number | string; protocol: string }[] } };
export type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

/** The port number a probe or a Service targets: a number, or the name of a container port. */
export function portNumber(container: Container, port: number | string, protocol = 'TCP'): number {
  if (typeof port === 'number') return port;
  const named = container.ports.find((p) => p.name === port && p.protocol === protocol);
  assert.ok(named, `container port named ${port}`);
  return named.containerPort;
}

/**
 * The Corefile whose path `-conf` gives, read from the ConfigMap the Deployment mounts there:
 * the args, the mount, the volume's item and the ConfigMap must all agree.
 */
export function mountedCorefile(manifests: readonly Manifest[], pod: PodSpec): string {
  const container = pod.containers[0]!;
  const conf = container.args[container.args.indexOf('-conf') + 1];
  assert.equal(conf, '/etc/coredns/Corefile');
  const mount = container.volumeMounts.find((m) => conf!.startsWith(m.mountPath + '/'));
  assert.ok(mount, 'a volume is mounted where -conf reads');
  const volume = pod.volumes.find((v) => v.name === mount.name);
  assert.ok(volume, `volume ${mount.name}`);
  const item = volume.configMap.items.find((i) => `${mount.mountPath}/${i.path}` === conf);
  assert.ok(item, 'the volume puts a key at the -conf path');
  const configMap = only<{ data: Record<string, string> }>(manifests, 'ConfigMap', volume.configMap.name);
  const corefile = configMap.data[item.key];
  assert.ok(corefile, `ConfigMap ${volume.configMap.name} has ${item.key}`);
  return corefile;
}

/**
 * The `kube-system/coredns` Corefile kubeadm (v1.32 and later) writes, rendered for
 * `cluster.local`: the `CoreDNSConfigMap` template of kubernetes/kubernetes
 * cmd/kubeadm/app/phases/addons/dns/manifests.go, whitespace included.
 */
export const kubeadmCorefile = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
`;
