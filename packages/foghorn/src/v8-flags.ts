/**
 * The V8 flags a serving Foghorn process runs with. They go on node's command line, before the
 * script (`node --min-semi-space-size=4 … cli.js -conf Corefile`): the
 * container image's ENTRYPOINT and `npm start` give them, and `-workers` gives them to its
 * workers. Node reads them only when it starts, and does not accept them in NODE_OPTIONS.
 *
 * `--min-semi-space-size=4` (MB): V8 shrinks its young generation back to its first size, 1 MB,
 * after a collection that finds the process allocating slowly (an idle spell, a lull in
 * queries), and grows it again only when many objects outlive collections, which a DNS server's
 * per-query garbage never does. So after the first quiet spell Foghorn scavenged every ~1,000
 * queries, and a scavenge pauses for a time that hardly depends on the garbage: a median 0.42 ms
 * for whoami, 0.63 for lighthouse with 10,000 services, which at 10,000 QPS made 110 pauses
 * every 10 s, 0.7 % of the time. With 4 MB it made a quarter as many, of about the same length,
 * and under full load answered 5 % more queries (`npm run bench:dnsperf`, whoami and lighthouse).
 *
 * `--max-semi-space-size=4` (MB) holds it there. Building a large index at start-up (lighthouse's
 * 10,000 services) outlives collections, so V8 grew the young generation to 16 MB, and after the
 * first quiet spell it shrank it back in one scavenge that paused 10.6 ms, the longest pause of
 * the process (the scavenges after it, 1.7–4.3 ms while V8 unmapped pages, are the idle-spell
 * behaviour below, which the flags do not stop). With both at 4, three paired runs at
 * 10,000 QPS after 30 s idle read p99.9 2.5–2.9 ms against 4.0–5.1, and four paired saturating
 * runs 2.3–3.2 % more QPS at 2.5 % less CPU a query; the index loaded in 2.24–2.34 s against
 * 2.41–2.47. Memory: 6 MB more reserved for the young generation than V8's first 1 MB, and less
 * than the 16 MB it grew to (kubernetes with 50,000 services: 132–134 MB resident against
 * 156–164 a second after loading).
 *
 * Neither flag stops what V8 does after an idle spell: while the last 5 s allocated under 1 KB a
 * millisecond, every scavenge uncommits the young generation's spare half and the next faults it
 * in again, so the first 3–4 s of traffic after a lull scavenge in 3.4–3.9 ms instead of 0.5–1.0
 * (the GC pauses of `npm run bench:dnsperf`'s tail runs). No Node 20 flag turns that off on its own.
 *
 * `FOGHORN_DISABLE=v8-flags` (docs/performance.md, "Switches") leaves them out: {@link v8Flags}
 * is then empty and {@link withV8Flags} adds nothing, so workers and the benchmarks' servers run
 * with V8's defaults and the next machine can measure the flags again. The container image's
 * ENTRYPOINT names them itself; override the entrypoint to run it without them.
 *
 * `--max-inlined-bytecode-size-cumulative=4000` (bytes of bytecode, V8's default 920): how much
 * TurboFan inlines into one optimized function. A query crosses the listener, a link and a
 * handler per plugin, the writers and the recorder, and with prometheus, errors and log in the
 * chain the default ran out before the writers, which stayed calls. Paired saturating runs
 * (9 pairs each, dnsperf on the other core): Corefile.example 3.0 % more QPS at 3.1 % less CPU a
 * query, the same chain without log and prometheus 1.4 % and 1.3 %, lighthouse with 10,000
 * services 1.1 % and 1.1 %.
 */
import { isDisabled } from '@foghorn/core/wire';

const flagGroups: readonly (readonly string[])[] = isDisabled('v8-flags') ? [] : [['--min-semi-space-size=4', '--max-semi-space-size=4'], ['--max-inlined-bytecode-size-cumulative=4000']];
/** The flags, in the order node's command line gives them; empty under `FOGHORN_DISABLE=v8-flags`. */
export const v8Flags: readonly string[] = flagGroups.flat();

/**
 * `execArgv` with {@link v8Flags} in front, less those the operator sets already. The two
 * semi-space flags size one thing, the young generation, so an operator's own value for either
 * drops both (a minimum of 16 with our maximum of 4 would fight it).
 */
export function withV8Flags(execArgv: readonly string[]): string[] {
  const named = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-');
  const given = new Set(execArgv.map(named));
  return [...flagGroups.filter((group) => !group.some((flag) => given.has(named(flag)))).flat(), ...execArgv];
}
