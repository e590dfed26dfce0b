/**
 * A benchmark scenario: a Corefile for Foghorn (listening on 127.0.0.1 port 0) and the query the
 * load generator repeats. `run.ts` measures every `scenario-*.js` module next to the naive
 * responder in the same run; `dnsperf.ts` measures some of them with dnsperf next to its peers. A scenario module's default export is a {@link BenchScenario}.
 */
import type { ChildProcess } from 'node:child_process';

export interface ScenarioSetup {
  /** Corefile text; its first server block must listen on 127.0.0.1 with port 0. */
  readonly corefile: string;
  /** Name and type the load generator asks for. */
  readonly queryName: string;
  readonly queryType: string;
  /**
   * The queries `npm run bench:dnsperf` cycles through, one `name type` per line (dnsperf's
   * input format); without it, `queryName queryType` alone.
   */
  readonly queries?: readonly string[];
  /**
   * A forwarding scenario's upstream, listening on 127.0.0.1 `port`: bench:dnsperf points its
   * relay peer at it, so the comparison is proxying against proxying, and measures the upstream
   * itself, whose latency a forwarder's is held against.
   */
  readonly upstream?: { readonly port: number; readonly process: ChildProcess };
  /**
   * Foghorn with other Corefiles, measured in the same rounds as `corefile` (bench:dnsperf): the
   * same chain without some plugins, so Foghorn's ratio to a variant is what those plugins cost.
   */
  readonly variants?: ReadonlyArray<{ readonly label: string; readonly corefile: string }>;
  /**
   * The same job as a Corefile for a real CoreDNS listening on 127.0.0.1 `port`: bench:dnsperf
   * runs it as the `coredns` peer when COREDNS_BINARY names a binary.
   */
  readonly coredns?: (port: number) => string;
  /** Stops whatever `setup` started (an upstream, a test API server). */
  cleanup(): Promise<void>;
}

export interface BenchScenario {
  /** One line shown in the report. */
  readonly title: string;
  /** The ratio to the naive responder the scenario must reach, shown next to the figure. */
  readonly targetRatio: number;
  setup(): Promise<ScenarioSetup>;
}
