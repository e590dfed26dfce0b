import { setupTable } from '@foghorn/testkit';
import type { Controller } from '@foghorn/core';
import loadbalance, { parseLoadbalance } from '@foghorn/plugin-loadbalance';

interface Summary {
  policy: string;
  weightFile?: string;
  reloadMs: number;
  prefer: string[];
}

function summarize(c: Controller): Summary {
  const { prefer, ...rest } = parseLoadbalance(c);
  return { ...rest, prefer: prefer.map((subnet) => subnet.text) };
}

const roundRobin = { policy: 'round_robin', reloadMs: 30_000, prefer: [] };

// CoreDNS plugin/loadbalance/setup_test.go TestSetup, then prefer and the block quirks.
setupTable('loadbalance', summarize, {
  plugin: loadbalance,
  good: [
    { input: 'loadbalance', want: roundRobin },
    { input: 'loadbalance round_robin', want: roundRobin },
    { input: 'loadbalance weighted wfile', want: { policy: 'weighted', weightFile: 'wfile', reloadMs: 30_000, prefer: [] } },
    { input: 'loadbalance weighted wf {\n reload 10s\n}', want: { policy: 'weighted', weightFile: 'wf', reloadMs: 10_000, prefer: [] } },
    { input: 'loadbalance weighted wf {\n reload 0s\n}', want: { policy: 'weighted', weightFile: 'wf', reloadMs: 0, prefer: [] } },
    { input: 'loadbalance round_robin {\n prefer 10.9.20.0/24 192.168.1.0/24\n}', want: { ...roundRobin, prefer: ['10.9.20.0/24', '192.168.1.0/24'] } },
    { input: 'loadbalance {\n prefer 2001:db8::/32\n prefer 10.0.0.0/8\n}', want: { ...roundRobin, prefer: ['2001:db8::/32', '10.0.0.0/8'] } },
    { input: 'loadbalance {\n prefer\n}', want: roundRobin },
    // Repeated directives: the last policy wins; a weighted one drops earlier prefer subnets.
    { input: 'loadbalance weighted wf\nloadbalance round_robin', want: { policy: 'round_robin', weightFile: 'wf', reloadMs: 30_000, prefer: [] } },
    { input: 'loadbalance {\n prefer 10.0.0.0/8\n}\nloadbalance weighted wf', want: { policy: 'weighted', weightFile: 'wf', reloadMs: 30_000, prefer: [] } },
  ],
  bad: [
    { input: 'loadbalance fleeb', error: 'Corefile:2:13 - Error during parsing: unknown policy: fleeb' },
    { input: 'loadbalance round_robin a', error: 'Corefile:2:25 - Error during parsing: unknown property for round_robin' },
    { input: 'loadbalance weighted', error: 'Corefile:2:13 - Error during parsing: missing weight file argument' },
    { input: 'loadbalance weighted a b', error: 'Corefile:2:24 - Error during parsing: unexpected argument(s)' },
    { input: 'loadbalance weighted wfile {\n susu\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'susu'" },
    { input: 'loadbalance weighted wfile {\n reload a\n}', error: "Corefile:3:9 - Error during parsing: invalid reload duration 'a'" },
    { input: 'loadbalance weighted wfile {\n reload 30s a\n}', error: 'Corefile:3:13 - Error during parsing: unexpected argument' },
    { input: 'loadbalance weighted wfile {\n reload\n}', error: 'Corefile:3:2 - Error during parsing: reload duration value is missing' },
    // The weighted block is weighted's own: prefer is refused there (CoreDNS's quirk).
    { input: 'loadbalance weighted wfile {\n prefer 10.0.0.0/8\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'prefer'" },
    { input: 'loadbalance {\n reload 10s\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'reload'" },
    { input: 'loadbalance {\n prefer 10.0.0.0/33\n}', error: 'Corefile:3:9 - Error during parsing: invalid CIDR "10.0.0.0/33": invalid CIDR address: 10.0.0.0/33' },
    { input: 'loadbalance {\n prefer 10.0.0.1\n}', error: 'Corefile:3:9 - Error during parsing: invalid CIDR "10.0.0.1": invalid CIDR address: 10.0.0.1' },
  ],
});
