/**
 * examples/kubernetes: every manifest parses, and the pieces point at each other — labels,
 * ports, probes, the Corefile path, the service account, and RBAC against what lighthouse reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { watchedResourceSpecs } from '@foghorn/plugin-lighthouse';
import { repoRoot, runCli } from './cli-helpers.js';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

function load(file: string): Manifest[] {
  const documents = parseAllDocuments(readFileSync(join(repoRoot, 'examples', 'kubernetes', file), 'utf8'));
  return documents.map((document) => {
    assert.deepEqual(document.errors, [], `${file}: YAML errors`);
    return document.toJS() as Manifest;
  });
}

// Shapes of the fields read below; the manifests are checked, not trusted.
type Container = {
  args: string[];
  ports: { name: string; containerPort: number; protocol: string }[];
  livenessProbe: { httpGet: { path: string; port: number } };
  readinessProbe: { httpGet: { path: string; port: number } };
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: { readOnlyRootFilesystem: boolean; allowPrivilegeEscalation: boolean; capabilities: { drop: string[]; add: string[] } };
  resources: { limits: { memory: string } };
};
type PodSpec = {
  serviceAccountName: string;
  containers: Container[];
  volumes: { name: string; configMap: { name: string; items: { key: string; path: string }[] } }[];
  securityContext: { runAsNonRoot: boolean };
};

const manifests = load('lighthouse-dns.yaml');
const byKind = (kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);
const one = (kind: string): Manifest => {
  const found = byKind(kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0]!;
};

test('the Deployment runs 2 non-root replicas with a read-only root and only NET_BIND_SERVICE', () => {
  const deployment = one('Deployment') as Manifest & { spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
  assert.equal(deployment.spec.replicas, 2);
  for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels)) assert.equal(deployment.spec.template.metadata.labels[key], value);
  const pod = deployment.spec.template.spec;
  assert.equal(pod.securityContext.runAsNonRoot, true);
  const [container] = pod.containers;
  assert.ok(container);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'], add: ['NET_BIND_SERVICE'] });
  assert.ok(container.resources.limits.memory, 'a memory limit is set');
});

test('the Corefile is mounted where -conf reads it, and its probes and metrics match the ports', async () => {
  const deployment = one('Deployment') as Manifest & { spec: { template: { spec: PodSpec } } };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0]!;
  const conf = container.args[container.args.indexOf('-conf') + 1];
  assert.equal(conf, '/etc/coredns/Corefile');
  const mount = container.volumeMounts.find((m) => conf!.startsWith(m.mountPath + '/'))!;
  const volume = pod.volumes.find((v) => v.name === mount.name)!;
  const item = volume.configMap.items.find((i) => `${mount.mountPath}/${i.path}` === conf)!;
  const configMap = byKind('ConfigMap').find((m) => m.metadata.name === volume.configMap.name) as Manifest & { data: Record<string, string> };
  assert.ok(configMap, 'the mounted ConfigMap exists');
  const corefile = configMap.data[item.key]!;
  assert.match(corefile, /^clusterset\.local:53 \{$/m);
  const ports = new Map(container.ports.map((p) => [`${p.containerPort}/${p.protocol}`, p.name]));
  // Defaults of health (:8080), ready (:8181) and the Corefile's prometheus address.
  assert.match(corefile, /^health$/m);
  assert.equal(container.livenessProbe.httpGet.path, '/health');
  assert.equal(container.livenessProbe.httpGet.port, 8080);
  assert.match(corefile, /^ready$/m);
  assert.equal(container.readinessProbe.httpGet.path, '/ready');
  assert.equal(container.readinessProbe.httpGet.port, 8181);
  assert.match(corefile, /^prometheus :9153$/m);
  for (const port of ['53/UDP', '53/TCP', '9153/TCP', '8080/TCP', '8181/TCP']) assert.ok(ports.has(port), `container port ${port}`);

  // The Corefile itself is one Foghorn accepts.
  const result = await runCli(['-validate', '-conf', 'stdin'], { input: corefile, env: { ...process.env, SUBMARINER_CLUSTERID: 'cluster-a', SUBMARINER_NAMESPACE: 'submariner-operator' } });
  assert.equal(result.stdout, 'OK\n', result.stderr);
});

test('the Services select the pods and target ports the container exposes', () => {
  const deployment = one('Deployment') as Manifest & { spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
  const labels = deployment.spec.template.metadata.labels;
  const container = deployment.spec.template.spec.containers[0]!;
  const services = byKind('Service') as (Manifest & { spec: { selector: Record<string, string>; ports: { port: number; targetPort: number; protocol: string }[] } })[];
  assert.equal(services.length, 2);
  for (const service of services) {
    for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(labels[key], value, `${service.metadata.name} selects the pods`);
    for (const port of service.spec.ports) {
      assert.ok(container.ports.some((p) => p.containerPort === port.targetPort && p.protocol === port.protocol), `${service.metadata.name} ${port.targetPort}/${port.protocol}`);
    }
  }
  const dns = services.find((s) => s.metadata.name === 'submariner-lighthouse-coredns')!;
  assert.deepEqual(dns.spec.ports.map((p) => `${p.port}/${p.protocol}`).sort(), ['53/TCP', '53/UDP']);
  const metrics = services.find((s) => s.metadata.name !== dns.metadata.name)!;
  assert.deepEqual(metrics.spec.ports.map((p) => p.port), [9153]);
});

test('RBAC grants list and watch on exactly what the lighthouse plugin reads, to the pod\'s account', () => {
  const deployment = one('Deployment') as Manifest & { spec: { template: { spec: PodSpec } } };
  const account = one('ServiceAccount');
  assert.equal(deployment.spec.template.spec.serviceAccountName, account.metadata.name);
  assert.equal(account.metadata.namespace, deployment.metadata.namespace);
  const role = one('ClusterRole') as Manifest & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
  const binding = one('ClusterRoleBinding') as Manifest & { roleRef: { kind: string; name: string }; subjects: { kind: string; name: string; namespace: string }[] };
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace }]);
  const granted = role.rules.flatMap((rule) => {
    assert.deepEqual([...rule.verbs].sort(), ['list', 'watch']);
    return rule.apiGroups.flatMap((group) => rule.resources.map((resource) => `${group}/${resource}`));
  });
  // Exactly what the plugin watches: nothing missing (it would never sync), nothing more.
  const watched = [...new Set(watchedResourceSpecs.map(([, spec]) => `${spec.group}/${spec.plural}`))];
  assert.deepEqual(granted.sort(), watched.sort());
});

test('the cluster DNS block forwards clusterset.local between the operator\'s markers', () => {
  const [configMap] = load('coredns-forward.yaml') as (Manifest & { data: { Corefile: string } })[];
  assert.ok(configMap);
  assert.match(configMap.data.Corefile, /#lighthouse-start AUTO-GENERATED SECTION\. DO NOT EDIT\nclusterset\.local:53 \{\n {4}forward \. \S+\n\}\n#lighthouse-end/);
});
