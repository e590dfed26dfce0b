/**
 * The V8 flags a serving Foghorn process runs with. They go on node's command line, before the
 * script (`node --min-semi-space-size=4 cli.js -conf Corefile`): the container image's
 * ENTRYPOINT and `npm start` give them, and `-workers` gives them to its workers. Node reads
 * them only when it starts, and does not accept them in NODE_OPTIONS.
 *
 * `--min-semi-space-size=4` (MB): V8 halves its young generation, down to 1 MB, whenever a
 * collection finds the process allocating slowly (an idle spell, a lull in queries), and grows
 * it again only when many objects outlive a collection, which a DNS server's per-query garbage
 * never does. So after the first quiet minute Foghorn scavenged every ~1,000 queries, each
 * pause costing ~0.6 ms whatever the traffic, most of it fixed with a large index in the heap:
 * lighthouse with 10,000 services at 10,000 QPS spent 0.7 % of its time in 110 scavenges every
 * 10 s. At 4 MB it is ~30 of about the same length, and under full load 5 % more queries are
 * answered (README, "dnsperf"). The cost: 6 MB more reserved for the young generation.
 */
export const v8Flags: readonly string[] = ['--min-semi-space-size=4'];

/** `execArgv` with each of {@link v8Flags} that it does not set already (an operator's own value wins). */
export function withV8Flags(execArgv: readonly string[]): string[] {
  const named = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-');
  const given = new Set(execArgv.map(named));
  return [...v8Flags.filter((flag) => !given.has(named(flag))), ...execArgv];
}
