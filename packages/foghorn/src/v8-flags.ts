/**
 * The V8 flags a serving Foghorn process runs with. They go on node's command line, before the
 * script (`node --min-semi-space-size=4 cli.js -conf Corefile`): the container image's
 * ENTRYPOINT and `npm start` give them, and `-workers` gives them to its workers. Node reads
 * them only when it starts, and does not accept them in NODE_OPTIONS.
 *
 * `--min-semi-space-size=4` (MB): V8 shrinks its young generation back to its first size, 1 MB,
 * after a collection that finds the process allocating slowly (an idle spell, a lull in
 * queries), and grows it again only when many objects outlive collections, which a DNS server's
 * per-query garbage never does. So after the first quiet spell Foghorn scavenged every ~1,000
 * queries, and a scavenge pauses for a time that hardly depends on the garbage: a median 0.42 ms
 * for whoami, 0.63 for lighthouse with 10,000 services, which at 10,000 QPS made 110 pauses
 * every 10 s, 0.7 % of the time. With 4 MB it made a quarter as many, of about the same length,
 * and under full load answered 5 % more queries (README, "dnsperf"). The cost: 6 MB more
 * reserved for the young generation.
 */
export const v8Flags: readonly string[] = ['--min-semi-space-size=4'];

/** `execArgv` with each of {@link v8Flags} that it does not set already (an operator's own value wins). */
export function withV8Flags(execArgv: readonly string[]): string[] {
  const named = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-');
  const given = new Set(execArgv.map(named));
  return [...v8Flags.filter((flag) => !given.has(named(flag))), ...execArgv];
}
