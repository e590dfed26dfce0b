// The monitoring example, checked as an operator would use it: Prometheus's own tool loads the
// alerting rules and runs their unit tests on synthetic series, and every metric (and label) the
// rules and the Grafana dashboard read is one a running Foghorn serves on /metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freeTcpPort, httpGet, query, startUpstream } from '@foghorn/testkit';
import { standardDirectives } from 'foghorn';
import { startServer } from '@foghorn/testkit';
import YAML from 'yaml';

const here = (file) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const rules = YAML.parse(readFileSync(here('alerts.yaml'), 'utf8'));
const dashboard = JSON.parse(readFileSync(here('grafana-dashboard.json'), 'utf8'));

/** The alerts of CoreDNS's monitoring mixin (coredns-mixin, alerts/*.libsonnet), by name. */
const mixinAlerts = [
  'CoreDNSDown',
  'CoreDNSLatencyHigh',
  'CoreDNSErrorsHigh',
  'CoreDNSForwardLatencyHigh',
  'CoreDNSForwardErrorsHigh',
  'CoreDNSForwardHealthcheckFailureCount',
  'CoreDNSForwardHealthcheckBrokenCount',
];

/** Runs promtool in this directory; a missing promtool fails the test with what to install. */
function promtool(...args) {
  const run = spawnSync('promtool', args, { cwd: here('.'), encoding: 'utf8' });
  if (run.error?.code === 'ENOENT') assert.fail("promtool is not installed: Debian's `prometheus` package has it (scripts/test-tools.sh installs it)");
  return run;
}

test('promtool loads the alerting rules', () => {
  const run = promtool('check', 'rules', 'alerts.yaml');
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const count = rules.groups.reduce((n, group) => n + group.rules.length, 0);
  assert.match(run.stdout, new RegExp(`SUCCESS: ${count} rules found`));
});

test('the rules fire on synthetic series as the mixin\'s do, and stay silent on healthy ones (promtool test rules)', () => {
  const run = promtool('test', 'rules', 'alerts.test.yaml');
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /SUCCESS/);
  // Every alert has a test that expects it to fire.
  const tested = readFileSync(here('alerts.test.yaml'), 'utf8');
  for (const name of mixinAlerts) assert.match(tested, new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels`), `${name} is tested firing`);
});

test('every alert of CoreDNS\'s mixin is there, each with a severity', () => {
  const alerts = rules.groups.flatMap((group) => group.rules);
  assert.deepEqual([...new Set(alerts.map((rule) => rule.alert))].sort(), [...mixinAlerts].sort());
  for (const rule of alerts) assert.match(rule.labels?.severity ?? '', /^(critical|warning)$/, rule.alert);
});

/** Every PromQL expression of the dashboard: panel targets and template variables. */
function dashboardExpressions() {
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  const targets = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel '${panel.title}'`, expr: target.expr })));
  const variables = dashboard.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `variable $${v.name}`, expr: v.query.query.replace(/^label_values\((.*),\s*\w+\)$/, '$1') }));
  return [...targets, ...variables];
}

test('the dashboard is importable: unique panel ids, a Prometheus data source variable, queries on every panel', () => {
  assert.equal(typeof dashboard.title, 'string');
  const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
  assert.ok(panels.length >= 20, `${panels.length} panels`);
  const ids = dashboard.panels.map((panel) => panel.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  assert.ok(dashboard.templating.list.some((v) => v.type === 'datasource' && v.query === 'prometheus'));
  for (const panel of panels) assert.ok(panel.targets?.length > 0 && panel.targets.every((t) => t.expr), `panel '${panel.title}' has queries`);
});

/**
 * The metric names an expression reads, and the label names it matches or aggregates by. Metric
 * names are the identifiers in front of a `{` selector, and every Foghorn family's name.
 */
function parseExpression(expr) {
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const metrics = new Set([...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g)].map((m) => m[1]));
  for (const m of bare.matchAll(/\b((?:coredns|process|nodejs)_[a-z0-9_]+)/g)) metrics.add(m[1]);
  const labels = new Set();
  for (const [, inside] of bare.matchAll(/\{([^}]*)\}/g)) for (const m of inside.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) labels.add(m[1]);
  for (const [, list] of bare.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) for (const name of list.split(',').map((s) => s.trim()).filter(Boolean)) labels.add(name);
  return { metrics: [...metrics], labels: [...labels] };
}

/** Labels Prometheus adds to every scraped series, and what Kubernetes service discovery adds. */
const targetLabels = new Set(['job', 'instance', 'pod', 'namespace', 'cluster', 'service']);

test('every metric and label the dashboard and the rules read is one Foghorn serves', async (t) => {
  // A server with the plugins the dashboard has panels for, asked a few questions so that
  // the labelled series exist: cache and forward, kubernetes and lighthouse from the examples.
  const upstream = await startUpstream();
  t.after(() => upstream.close());
  const metricsPort = await freeTcpPort();
  const corefile = `
.:0 {
    bind 127.0.0.1
    prometheus 127.0.0.1:${metricsPort}
    errors
    cache 30
    forward . ${upstream.address}
}
cluster.local:0 {
    bind 127.0.0.1
    prometheus 127.0.0.1:${metricsPort}
    kubernetes cluster.local {
        manifests ${here('../cluster')}
    }
}
clusterset.local:0 {
    bind 127.0.0.1
    prometheus 127.0.0.1:${metricsPort}
    lighthouse {
        manifests ${here('../clusterset')}
        cluster_id cluster1
    }
}
`;
  const server = await startServer(corefile, { directives: standardDirectives() });
  t.after(() => server.close());
  const port = server.port();
  for (const name of ['example.org', 'example.org', 'web.shop.svc.cluster.local', 'checkout.shop.svc.clusterset.local']) await query({ port }, name, 'A', { dnssecOk: true });
  const scrape = await httpGet(metricsPort, '/metrics');
  assert.equal(scrape.status, 200);

  // Families from the TYPE lines (a histogram's samples add _bucket, _sum and _count), and the
  // labels seen on each family's samples.
  const families = new Map();
  for (const [, name, type] of scrape.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(name, { type, labels: new Set() });
  for (const [, sample, labels = ''] of scrape.text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/gm)) {
    const family = families.get(sample) ?? families.get(sample.replace(/_(bucket|sum|count)$/, ''));
    for (const m of labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) family?.labels.add(m[1]);
  }
  const familyOf = (name) => {
    if (families.has(name)) return families.get(name);
    const base = name.replace(/_(bucket|sum|count)$/, '');
    return families.get(base)?.type === 'histogram' ? families.get(base) : undefined;
  };

  const expressions = [
    ...dashboardExpressions(),
    ...rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }))),
  ];
  const problems = [];
  for (const { where, expr } of expressions) {
    const { metrics, labels } = parseExpression(expr);
    if (metrics.length === 0) problems.push(`${where}: reads no metric: ${expr}`);
    const known = metrics.filter((name) => name !== 'up').map((name) => [name, familyOf(name)]);
    for (const [name, family] of known) if (!family) problems.push(`${where}: ${name} is not a metric Foghorn serves`);
    // A label is checked against the samples of the expression's metrics, where there are any.
    const seen = known.filter(([, family]) => family && family.labels.size > 0);
    if (seen.length === 0) continue;
    const available = new Set([...targetLabels, ...seen.flatMap(([, family]) => [...family.labels])]);
    for (const label of labels) if (!available.has(label)) problems.push(`${where}: no label '${label}' on ${seen.map(([name]) => name).join(', ')}`);
  }
  assert.deepEqual(problems, []);
});
