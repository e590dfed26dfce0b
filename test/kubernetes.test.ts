/**
 * examples/kubernetes, the Lighthouse DNS server for clusters without Submariner's operator:
 * every manifest parses, the pieces point at each other (labels, ports, probes, the Corefile
 * path, the service account, RBAC against what lighthouse reads), nothing is named like the
 * operator's objects, and the block for the cluster's own CoreDNS (coredns-forward.conf) is the
 * operator's, accepted inside kubeadm's Corefile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchedResourceSpecs } from '@foghorn/plugin-lighthouse';
import { runCli } from './cli-helpers.js';
import { kubeadmCorefile, loadManifests, mountedCorefile, only, portNumber, readExample } from './manifest-helpers.js';
import type { Deployment, Manifest, Rule, Service } from './manifest-helpers.js';

const manifests = loadManifests('lighthouse-dns.yaml');
const deployment = only<Deployment>(manifests, 'Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0]!;
const dnsService = only<Service>(manifests, 'Service', deployment.metadata.name);

test('every object has its own name and namespace, none of the operator\'s', () => {
  const namespace = only(manifests, 'Namespace').metadata.name;
  for (const m of manifests) {
    // submariner-lighthouse-coredns and every other component the operator names (admiral's
    // pkg/names) start with submariner-; its objects live in submariner-operator.
    assert.doesNotMatch(m.metadata.name, /^submariner-/, `${m.kind} ${m.metadata.name}`);
    if (m.kind === 'Namespace' || m.kind.startsWith('Cluster')) continue;
    assert.equal(m.metadata.namespace, namespace, `${m.kind} ${m.metadata.name} is in ${namespace}`);
  }
  assert.notEqual(namespace, 'submariner-operator');
});

test('the Deployment runs 2 non-root replicas with a read-only root, only NET_BIND_SERVICE and no sysctl', () => {
  assert.equal(deployment.spec.replicas, 2);
  for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels)) assert.equal(deployment.spec.template.metadata.labels[key], value);
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault');
  // Port 53 comes from the image's file capability, not from net.ipv4.ip_unprivileged_port_start.
  assert.equal(pod.securityContext?.sysctls, undefined);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.equal(container.securityContext.allowPrivilegeEscalation, false);
  assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'], add: ['NET_BIND_SERVICE'] });
  assert.ok(container.resources.limits.memory, 'a memory limit is set');
});

test('the Corefile is mounted where -conf reads it, and its probes and metrics match the ports', async () => {
  const corefile = mountedCorefile(manifests, pod);
  assert.match(corefile, /^clusterset\.local:53 \{$/m);
  const ports = new Map(container.ports.map((p) => [`${p.containerPort}/${p.protocol}`, p.name]));
  // Defaults of health (:8080), ready (:8181) and the Corefile's prometheus address.
  assert.match(corefile, /^health$/m);
  assert.equal(container.livenessProbe.httpGet.path, '/health');
  assert.equal(portNumber(container, container.livenessProbe.httpGet.port), 8080);
  assert.match(corefile, /^ready$/m);
  assert.equal(container.readinessProbe.httpGet.path, '/ready');
  assert.equal(portNumber(container, container.readinessProbe.httpGet.port), 8181);
  assert.match(corefile, /^prometheus :9153$/m);
  for (const port of ['53/UDP', '53/TCP', '9153/TCP', '8080/TCP', '8181/TCP']) assert.ok(ports.has(port), `container port ${port}`);

  // The Corefile itself is one Foghorn accepts.
  const result = await runCli(['-validate', '-conf', 'stdin'], { input: corefile, env: { ...process.env, SUBMARINER_CLUSTERID: 'cluster-a' } });
  assert.equal(result.stdout, 'OK\n', result.stderr);
});

test('the Services select the pods and target ports the container exposes', () => {
  const labels = deployment.spec.template.metadata.labels;
  const services = manifests.filter((m) => m.kind === 'Service') as (Manifest & Service)[];
  assert.equal(services.length, 2);
  for (const service of services) {
    for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(labels[key], value, `${service.metadata.name} selects the pods`);
    for (const port of service.spec.ports) {
      const target = portNumber(container, port.targetPort, port.protocol);
      assert.ok(container.ports.some((p) => p.containerPort === target && p.protocol === port.protocol), `${service.metadata.name} ${target}/${port.protocol}`);
    }
  }
  assert.deepEqual(dnsService.spec.ports.map((p) => `${p.port}/${p.protocol}`).sort(), ['53/TCP', '53/UDP']);
  const metrics = services.find((s) => s.metadata.name !== dnsService.metadata.name)!;
  assert.deepEqual(metrics.spec.ports.map((p) => p.port), [9153]);
});

test('RBAC grants list and watch on exactly what the lighthouse plugin reads, to the pod\'s account', () => {
  const account = only(manifests, 'ServiceAccount');
  assert.equal(pod.serviceAccountName, account.metadata.name);
  assert.equal(account.metadata.namespace, deployment.metadata.namespace);
  const role = only<{ rules: Rule[] }>(manifests, 'ClusterRole');
  const binding = only<{ roleRef: { kind: string; name: string }; subjects: { kind: string; name: string; namespace: string }[] }>(manifests, 'ClusterRoleBinding');
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

test('under the operator\'s image override the plugin needs no more RBAC than the operator grants', () => {
  // submariner-io/submariner-operator config/rbac/lighthouse-coredns/cluster_role.yaml: get,
  // list and watch on these, for the submariner-lighthouse-coredns service account.
  const operatorGrants = ['discovery.k8s.io/endpointslices', 'submariner.io/gateways', 'submariner.io/submariners', 'multicluster.x-k8s.io/serviceimports'];
  for (const [, spec] of watchedResourceSpecs) assert.ok(operatorGrants.includes(`${spec.group}/${spec.plural}`), `${spec.group}/${spec.plural}`);
});

// The block Submariner's operator writes at the top of the cluster's Corefile
// (servicediscovery_controller.go `updateLighthouseConfigInConfigMap`): its markers, then
// `DOMAIN:PORT {\n    forward . IP\n}` per domain, PORT being that of the cluster's `.:PORT` block.
const snippet = readExample('coredns-forward.conf');
const placeholder = 'LIGHTHOUSE_DNS_IP';

test('the cluster DNS block forwards clusterset.local between the operator\'s markers', () => {
  assert.match(snippet, new RegExp(`^#lighthouse-start AUTO-GENERATED SECTION\\. DO NOT EDIT\\nclusterset\\.local:53 \\{\\n {4}forward \\. ${placeholder}\\n\\}\\n#lighthouse-end\\n$`));
  assert.equal(/^\.:(\d+) \{$/m.exec(kubeadmCorefile)?.[1], '53', 'the port of the cluster\'s own block');
});

test('the block, with the Service\'s address, goes at the top of kubeadm\'s Corefile, and Foghorn accepts the result', async () => {
  const corefile = snippet.replace(placeholder, '10.96.12.34') + kubeadmCorefile;
  const result = await runCli(['-validate', '-conf', 'stdin'], { input: corefile });
  assert.equal(result.stdout, 'OK\n', result.stderr);
  // A block left with the placeholder is refused, not forwarded somewhere.
  const broken = await runCli(['-validate', '-conf', 'stdin'], { input: snippet + kubeadmCorefile });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /stdin:3\b/);
});

test('the README\'s recipe reads the address of this Service and fills the placeholder', () => {
  const readme = readExample('README.md');
  const lookup = `kubectl -n ${dnsService.metadata.namespace} get service ${dnsService.metadata.name} -o jsonpath='{.spec.clusterIP}'`;
  assert.ok(readme.includes(lookup), lookup);
  assert.ok(readme.includes(`s/${placeholder}/`), 'the recipe substitutes the placeholder');
  assert.ok(readme.includes('coredns-forward.conf'));
});
