/**
 * The option parser, position-pinned, with CoreDNS's error texts (plugin/kubernetes/setup.go,
 * setup_test.go `TestKubernetesParse` and friends, setup_ttl_test.go).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { setupTable } from '@foghorn/testkit';
import kubernetes, { parseKubernetes } from '../src/index.js';

// Setup refuses a kubeconfig or manifests directory that is not there (start-up would): real ones.
const fixtures = mkdtempSync(join(tmpdir(), 'foghorn-k8s-setup-'));
after(() => rmSync(fixtures, { recursive: true, force: true }));
const kubeconfigFile = join(fixtures, 'kubeconfig');
writeFileSync(kubeconfigFile, '');
const manifestsDir = join(fixtures, 'cluster');
mkdirSync(manifestsDir);

/** Caddy's ArgErr names the last token read, as CoreDNS's messages do. */
const arg = (word: string): string => `Wrong argument count or unexpected line ending after '${word}'`;

setupTable('kubernetes', parseKubernetes, {
  key: 'cluster.local',
  partial: true,
  plugin: kubernetes,
  good: [
    {
      input: 'kubernetes',
      want: {
        zones: ['cluster.local.'], primaryZone: 'cluster.local.', pods: 'disabled', ttl: 5, fallthrough: null, namespaces: null, labels: null,
        namespaceLabels: null, noEndpoints: false, ignoreEmptyService: false, endpointPodNames: false, multicluster: [], startupTimeoutMs: 5000, zonal: false,
        source: { kind: 'kubernetes', qps: 0, burst: 0, maxInflight: 0 },
      },
    },
    // The kubeadm stanza.
    {
      input: 'kubernetes cluster.local in-addr.arpa ip6.arpa {\n pods insecure\n fallthrough in-addr.arpa ip6.arpa\n ttl 30\n}',
      want: { zones: ['cluster.local.', 'in-addr.arpa.', 'ip6.arpa.'], pods: 'insecure', fallthrough: ['in-addr.arpa.', 'ip6.arpa.'], ttl: 30 },
    },
    // OpenShift's DNS operator still writes `upstream` (removed in CoreDNS 1.7): accepted, ignored.
    { input: 'kubernetes cluster.local {\n pods insecure\n upstream\n}', want: { zones: ['cluster.local.'], pods: 'insecure' } },
    // RKE2 lists cluster.local twice; duplicates are harmless.
    { input: 'kubernetes cluster.local cluster.local in-addr.arpa ip6.arpa', want: { zones: ['cluster.local.', 'cluster.local.', 'in-addr.arpa.', 'ip6.arpa.'] } },
    { input: 'kubernetes 10.0.0.0/24 cluster.local', want: { zones: ['0.0.10.in-addr.arpa.', 'cluster.local.'], primaryZone: 'cluster.local.' } },
    { input: 'kubernetes coredns.local test.local', want: { zones: ['coredns.local.', 'test.local.'] } },
    { input: 'kubernetes {\n endpoint http://localhost:9090 http://localhost:9091\n}', want: { source: { kind: 'kubernetes', endpoint: 'http://localhost:9090', qps: 0, burst: 0, maxInflight: 0 } } },
    { input: 'kubernetes {\n endpoint https://a:6443\n tls cert key cacert\n}', want: { source: { kind: 'kubernetes', endpoint: 'https://a:6443', tls: { cert: 'cert', key: 'key', ca: 'cacert' }, qps: 0, burst: 0, maxInflight: 0 } } },
    { input: `kubernetes {\n kubeconfig ${kubeconfigFile} context\n}`, want: { source: { kind: 'kubernetes', kubeconfig: kubeconfigFile, context: 'context', qps: 0, burst: 0, maxInflight: 0 } } },
    { input: 'kubernetes {\n namespaces demo-system test-system\n}', want: { namespaces: ['demo-system', 'test-system'] } },
    { input: 'kubernetes {\n labels environment in (production, staging, qa),application=nginx\n}', want: { labels: 'application=nginx,environment in (production,qa,staging)' } },
    { input: 'kubernetes {\n namespace_labels istio-injection=enabled\n}', want: { namespaceLabels: 'istio-injection=enabled' } },
    { input: 'kubernetes {\n pods verified\n}', want: { pods: 'verified' } },
    { input: 'kubernetes {\n fallthrough\n}', want: { fallthrough: ['.'] } },
    { input: 'kubernetes {\n ttl 56\n}', want: { ttl: 56 } },
    { input: 'kubernetes {\n ttl 0\n}', want: { ttl: 0 } },
    { input: 'kubernetes {\n ttl 3600\n}', want: { ttl: 3600 } },
    { input: 'kubernetes {\n endpoint_pod_names\n}', want: { endpointPodNames: true } },
    { input: 'kubernetes {\n noendpoints\n}', want: { noEndpoints: true } },
    { input: 'kubernetes {\n ignore empty_service\n}', want: { ignoreEmptyService: true } },
    // Upstream quirk kept: a bare `ignore` is accepted and does nothing.
    { input: 'kubernetes {\n ignore\n}', want: { ignoreEmptyService: false } },
    { input: 'kubernetes cluster.local clusterset.local {\n multicluster clusterset.local\n}', want: { multicluster: ['clusterset.local.'] } },
    // With no zones `multicluster` is empty: it does not default to the block's zones.
    { input: 'kubernetes {\n multicluster\n}', want: { multicluster: [] } },
    { input: 'kubernetes {\n startup_timeout 2m30s\n}', want: { startupTimeoutMs: 150_000 } },
    { input: 'kubernetes {\n apiserver_qps 50.5\n apiserver_burst 100\n apiserver_max_inflight 10\n}', want: { source: { kind: 'kubernetes', qps: 50.5, burst: 100, maxInflight: 10 } } },
    { input: 'kubernetes {\n zonal\n}', want: { zonal: true, noEndpoints: false } },
    { input: `kubernetes {\n manifests ${manifestsDir}\n}`, want: { source: { kind: 'manifests', dir: manifestsDir } } },
  ],
  bad: [
    { input: 'kubernetes\nkubernetes', error: 'Corefile:3:1 - Error during parsing: this plugin can only be used once per Server Block' },
    { input: 'kubernetes in-addr.arpa ip6.arpa', error: 'Corefile:2:25 - Error during parsing: non-reverse zone name must be used' },
    { input: 'kubernetes {\n endpoint\n}', error: `Corefile:3:2 - Error during parsing: ${arg('endpoint')}` },
    { input: 'kubernetes {\n tls cert key\n}', error: `Corefile:3:11 - Error during parsing: ${arg('key')}` },
    { input: 'kubernetes {\n kubeconfig\n}', error: arg('kubeconfig') },
    { input: 'kubernetes {\n kubeconfig a b c\n}', error: arg('c') },
    { input: 'kubernetes {\n namespaces\n}', error: arg('namespaces') },
    { input: 'kubernetes {\n labels\n}', error: arg('labels') },
    { input: 'kubernetes {\n labels environment in (production, qa\n}', error: "unable to parse label selector value: 'environment in (production, qa':" },
    { input: 'kubernetes {\n namespace_labels a in ()\n}', error: "unable to parse namespace_label selector value: 'a in ()':" },
    { input: 'kubernetes {\n namespaces a\n namespace_labels b=c\n}', error: 'Corefile:5:1 - Error during parsing: namespaces and namespace_labels cannot both be set' },
    { input: 'kubernetes {\n pods giant_seed\n}', error: 'Corefile:3:7 - Error during parsing: wrong value for pods: giant_seed,  must be one of: disabled, verified, insecure' },
    { input: 'kubernetes {\n pods\n}', error: arg('pods') },
    { input: 'kubernetes {\n endpoint_pod_names yes\n}', error: arg('yes') },
    { input: 'kubernetes {\n ttl\n}', error: arg('ttl') },
    { input: 'kubernetes {\n ttl -1\n}', error: 'ttl must be in range [0, 3600]: -1' },
    { input: 'kubernetes {\n ttl 3601\n}', error: 'ttl must be in range [0, 3600]: 3601' },
    { input: 'kubernetes {\n ttl x\n}', error: 'strconv.Atoi: parsing "x": invalid syntax' },
    { input: 'kubernetes {\n noendpoints ok\n}', error: arg('ok') },
    { input: 'kubernetes {\n ignore foo\n}', error: "unable to parse ignore value: 'foo'" },
    { input: 'kubernetes {\n zonal now\n}', error: arg('now') },
    { input: 'kubernetes {\n zonal\n noendpoints\n}', error: 'zonal requires the endpoint cache; remove noendpoints' },
    { input: 'kubernetes cluster.local {\n multicluster clusterset.local\n}', error: 'is not authoritative for the multicluster zone clusterset.local. (authoritative zones: [cluster.local.])' },
    { input: 'kubernetes {\n startup_timeout\n}', error: arg('startup_timeout') },
    { input: 'kubernetes {\n startup_timeout 5\n}', error: 'failed to parse startup_timeout: 5, time: missing unit in duration "5"' },
    { input: 'kubernetes {\n apiserver_qps\n}', error: arg('apiserver_qps') },
    { input: 'kubernetes {\n apiserver_qps x\n}', error: 'invalid apiserver_qps "x": strconv.ParseFloat: parsing "x": invalid syntax' },
    { input: 'kubernetes {\n apiserver_qps -1\n}', error: 'apiserver_qps must be >= 0' },
    { input: 'kubernetes {\n apiserver_burst -1\n}', error: 'apiserver_burst must be >= 0' },
    { input: 'kubernetes {\n apiserver_burst 1.5\n}', error: 'invalid apiserver_burst "1.5": strconv.Atoi: parsing "1.5": invalid syntax' },
    { input: 'kubernetes {\n apiserver_max_inflight -3\n}', error: 'apiserver_max_inflight must be >= 0' },
    { input: `kubernetes {\n manifests ${manifestsDir}\n endpoint http://x\n}`, error: "manifests cannot be combined with 'endpoint', 'tls' or 'kubeconfig'" },
    { input: 'kubernetes {\n kubeconfig /nonexistent/kubeconfig\n}', error: "Corefile:3:13 - Error during parsing: kubeconfig '/nonexistent/kubeconfig': no such file or directory" },
    { input: 'kubernetes {\n manifests /nonexistent/cluster\n}', error: "Corefile:3:12 - Error during parsing: manifests directory '/nonexistent/cluster': no such file or directory" },
  ],
});
