/**
 * examples/kubernetes/cluster-dns.yaml, Foghorn as a cluster's DNS: the pieces point at each
 * other (labels, ports, probes, the Corefile path, the service account, the scaling objects),
 * the Corefile is kubeadm's and Foghorn accepts it, and RBAC grants what the kubernetes plugin
 * watches — everything it watches for this Corefile, and nothing no option of it would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, ReadinessProbes } from '@foghorn/core';
import type { ReadinessProbe } from '@foghorn/core';
import bind from '@foghorn/plugin-bind';
import kubernetes, { ClusterStore, parseKubernetes, watchedResources } from '@foghorn/plugin-kubernetes';
import { directivesOf, eventually, parseDirective, startServer } from '@foghorn/testkit';
import { startKubeApiServer } from '@foghorn/testkit/kube';
import { repoRoot, runCli } from './cli-helpers.js';
import { kubeadmCorefile, loadManifests, mountedCorefile, only, portNumber } from './manifest-helpers.js';
import type { Deployment, Rule, Service } from './manifest-helpers.js';

const manifests = loadManifests('cluster-dns.yaml');
const deployment = only<Deployment>(manifests, 'Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0]!;
const podLabels = deployment.spec.template.metadata.labels;
const corefile = mountedCorefile(manifests, pod);

/** Every key of `selector` has its value among the pods' labels. */
function selectsPods(selector: Record<string, string>, what: string): void {
  assert.ok(Object.keys(selector).length > 0, `${what} selects something`);
  for (const [key, value] of Object.entries(selector)) assert.equal(podLabels[key], value, `${what} selects the pods (${key})`);
}

/** The kubernetes block of `text`, as written. */
function kubernetesBlock(text: string): string {
  const block = /^[ \t]*kubernetes\b.*\{\n(?:.*\n)*?[ \t]*\}\n/m.exec(text)?.[0];
  assert.ok(block, 'a kubernetes block');
  return block;
}

/** `text` with `from` replaced by `to`, which must occur. */
function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the Corefile has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** The Corefile with every option that widens what the plugin watches: `pods verified`, `multicluster`. */
const widest = edit(edit(corefile, 'kubernetes cluster.local ', 'kubernetes cluster.local clusterset.local '), 'pods insecure', 'pods verified\n       multicluster clusterset.local');

/** `group/resource verb` for every rule of the ClusterRole. */
function grants(): Set<string> {
  const role = only<{ rules: Rule[] }>(manifests, 'ClusterRole');
  return new Set(role.rules.flatMap((rule) => rule.apiGroups.flatMap((group) => rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${group}/${resource} ${verb}`)))));
}

/** `group/plural` of everything the kubernetes plugin watches for the `kubernetes` block of `text`. */
async function watchedBy(text: string): Promise<string[]> {
  const options = await parseDirective('kubernetes', parseKubernetes, kubernetesBlock(text), '.:53');
  return [...new Set(watchedResources(options, new ClusterStore()).map(([, spec]) => `${spec.group}/${spec.plural}`))].sort();
}

test('the Corefile is kubeadm\'s, mounted where -conf reads it, and Foghorn accepts it', async () => {
  assert.equal(corefile, kubeadmCorefile);
  const result = await runCli(['-validate', '-conf', 'stdin'], { input: corefile });
  assert.equal(result.stdout, 'OK\n', result.stderr);
});

test('every object lives in kube-system and carries the k8s-app: kube-dns label', () => {
  for (const m of manifests) {
    assert.equal(m.metadata.labels?.['k8s-app'], 'kube-dns', `${m.kind} ${m.metadata.name}`);
    if (!m.kind.startsWith('Cluster')) assert.equal(m.metadata.namespace, 'kube-system', `${m.kind} ${m.metadata.name}`);
  }
  selectsPods(deployment.spec.selector.matchLabels, 'the Deployment');
});

test('the probes are kubeadm\'s, on the ports health and ready listen on', () => {
  // health and ready without an address listen on :8080 and :8181; prometheus names its own.
  assert.match(corefile, /^ {4}health(?: \{)?$/m);
  assert.doesNotMatch(corefile, /^ {4}health \S*:/m);
  assert.match(corefile, /^ {4}ready$/m);
  assert.match(corefile, /^ {4}prometheus :9153$/m);
  assert.equal(container.livenessProbe.httpGet.path, '/health');
  assert.equal(portNumber(container, container.livenessProbe.httpGet.port), 8080);
  assert.equal(container.readinessProbe.httpGet.path, '/ready');
  assert.equal(portNumber(container, container.readinessProbe.httpGet.port), 8181);
  const ports = container.ports.map((p) => `${p.containerPort}/${p.protocol}`).sort();
  assert.deepEqual(ports, ['53/TCP', '53/UDP', '8080/TCP', '8181/TCP', '9153/TCP']);
});

test('the pod resolves through the node, not through itself', () => {
  // `forward . /etc/resolv.conf` with `loop`: the cluster's resolv.conf would point at this pod.
  assert.match(corefile, /^ {4}forward \. \/etc\/resolv\.conf\b/m);
  assert.match(corefile, /^ {4}loop$/m);
  assert.equal(pod['dnsPolicy'], 'Default');
});

test('the container runs as non-root with only NET_BIND_SERVICE, no sysctl and a read-only root', () => {
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
  assert.equal(pod.securityContext?.sysctls, undefined);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'], add: ['NET_BIND_SERVICE'] });
  const { requests, limits } = container.resources;
  assert.match(requests.memory, /^\d+Mi$/);
  assert.match(limits.memory, /^\d+Mi$/);
  assert.ok(parseInt(requests.memory) <= parseInt(limits.memory), 'the memory request fits the limit');
  assert.ok(requests.cpu, 'a CPU request, which the autoscaler needs');
});

test('the kube-dns Service selects the pods on 53/UDP, 53/TCP and 9153 at a fixed address', () => {
  const service = only<Service>(manifests, 'Service', 'kube-dns');
  selectsPods(service.spec.selector, 'kube-dns');
  assert.match(service.spec.clusterIP ?? '', /^\d+\.\d+\.\d+\.\d+$/, 'the kubelets\' clusterDNS address');
  assert.deepEqual(service.spec.ports.map((p) => `${p.name} ${p.port}/${p.protocol}`), ['dns 53/UDP', 'dns-tcp 53/TCP', 'metrics 9153/TCP']);
  for (const port of service.spec.ports) {
    const target = portNumber(container, port.targetPort, port.protocol);
    assert.ok(container.ports.some((p) => p.containerPort === target && p.protocol === port.protocol), `${port.name} reaches the container`);
  }
});

test('replicas spread over nodes and zones, a disruption budget keeps one up, the autoscaler owns the count', () => {
  const spread = pod['topologySpreadConstraints'] as { topologyKey: string; maxSkew: number; labelSelector: { matchLabels: Record<string, string> } }[];
  assert.deepEqual(spread.map((c) => c.topologyKey).sort(), ['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
  for (const constraint of spread) selectsPods(constraint.labelSelector.matchLabels, `spread over ${constraint.topologyKey}`);

  const budget = only<{ spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } } }>(manifests, 'PodDisruptionBudget');
  selectsPods(budget.spec.selector.matchLabels, 'the PodDisruptionBudget');
  const autoscaler = only<{ spec: { scaleTargetRef: { apiVersion: string; kind: string; name: string }; minReplicas: number; maxReplicas: number } }>(manifests, 'HorizontalPodAutoscaler');
  assert.deepEqual(autoscaler.spec.scaleTargetRef, { apiVersion: deployment.apiVersion, kind: 'Deployment', name: deployment.metadata.name });
  assert.ok(autoscaler.spec.minReplicas >= 2, 'never a single DNS pod');
  assert.ok(autoscaler.spec.maxReplicas > autoscaler.spec.minReplicas);
  assert.equal(deployment.spec.replicas, autoscaler.spec.minReplicas);
  assert.ok(budget.spec.maxUnavailable < autoscaler.spec.minReplicas, 'a drain leaves a replica serving');
});

test('RBAC grants list and watch on what the kubernetes plugin watches, to the pod\'s account', async () => {
  const account = only(manifests, 'ServiceAccount');
  assert.equal(pod.serviceAccountName, account.metadata.name);
  assert.equal(account.metadata.namespace, deployment.metadata.namespace);
  const role = only<{ rules: Rule[] }>(manifests, 'ClusterRole');
  const binding = only<{ roleRef: unknown; subjects: unknown }>(manifests, 'ClusterRoleBinding');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace }]);
  for (const rule of role.rules) assert.deepEqual([...rule.verbs].sort(), ['list', 'watch']);
  const granted = [...new Set([...grants()].map((grant) => grant.split(' ')[0]!))].sort();

  // This Corefile: nothing missing, or the plugin never syncs and /ready never passes.
  for (const resource of await watchedBy(corefile)) assert.ok(granted.includes(resource), `${resource} is granted`);
  // Nothing more than the most the plugin ever watches: `pods verified` and `multicluster`, the
  // options the ConfigMap's comment names.
  assert.deepEqual(granted, await watchedBy(widest));
  const result = await runCli(['-validate', '-conf', 'stdin'], { input: widest });
  assert.equal(result.stdout, 'OK\n', result.stderr);
});

for (const [name, text] of [['the Corefile', corefile], ['the Corefile with pods verified and multicluster', widest]] as const) {
  test(`every request the kubernetes plugin makes for ${name} is granted, and it gets ready`, async (t) => {
    const api = await startKubeApiServer();
    t.after(() => api.close());
    let probes: (() => readonly ReadinessProbe[]) | undefined;
    const readyprobe = definePlugin({ name: 'readyprobe', setup: (c) => void (probes = () => c.use(ReadinessProbes)) });
    // The block as the ConfigMap has it, pointed at the test API server instead of in-cluster.
    const block = kubernetesBlock(text).replace(/\{\n/, `{\n       endpoint ${api.url}\n`);
    const dns = await startServer(`.:0 {\n    bind 127.0.0.1\n    readyprobe\n${block}}\n`, { directives: directivesOf(bind, readyprobe, kubernetes) });
    t.after(() => dns.close());
    const probe = probes?.().find((p) => p.name === 'kubernetes');
    assert.ok(probe, 'kubernetes reports readiness');
    await eventually(() => probe.ready(), 5000, 'kubernetes ready');
    // Listed, then watched: every informer's watch is open before the requests are judged.
    const informers = watchedResources(await parseDirective('kubernetes', parseKubernetes, kubernetesBlock(text), '.:53'), new ClusterStore()).length;
    await eventually(() => Object.values(api.openWatches()).reduce((a, b) => a + b, 0) >= informers, 5000, `${informers} open watches`);

    const granted = grants();
    const asked = new Set(api.requests.map((request) => {
      // /api/v1/RESOURCE... (core) or /apis/GROUP/VERSION/RESOURCE...
      const group = /^\/apis\/([^/]+)\//.exec(request.path)?.[1] ?? '';
      return `${group}/${request.resource} ${request.verb}`;
    }));
    assert.equal([...asked].filter((request) => request.endsWith(' watch')).length, (await watchedBy(text)).length, 'a watch on every resource');
    for (const request of asked) assert.ok(granted.has(request), `${request} is granted`);
  });
}

test('the README swaps the image of kubeadm\'s coredns container and names the args this Deployment uses', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf("\n## Replace a cluster's CoreDNS\n");
  assert.ok(start >= 0, 'the section exists');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  assert.ok(section.includes('kubectl -n kube-system set image deployment/coredns coredns='), 'the set image command');
  assert.ok(section.includes(`\`${container.args.join(' ')}\``), 'the args it must keep');
  assert.ok(section.includes('examples/kubernetes/cluster-dns.yaml'));
});
