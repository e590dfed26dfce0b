/**
 * The shape of a differential case (`npm run differential`, bench/differential.ts): one Corefile,
 * files it reads, the queries to send to Foghorn and CoreDNS, and the differences kept on purpose.
 */

/** One question, and how it is asked. */
export interface DifferentialQuery {
  readonly name: string;
  readonly type: string;
  readonly class?: string;
  /** `udp` (default) or `tcp`. */
  readonly transport?: 'udp' | 'tcp';
  /** Recursion desired (default true). */
  readonly rd?: boolean;
  /** EDNS with this UDP size. */
  readonly udpSize?: number;
  /** EDNS with the DO bit. */
  readonly do?: boolean;
  /** EDNS with an empty NSID option (RFC 5001). */
  readonly nsid?: boolean;
  /** TTLs are not compared (they count down between the two servers' answers). */
  readonly ignoreTtl?: boolean;
}

/** What a case's `setup` can use. */
export interface CaseContext {
  /** The case's fresh directory, `{dir}` in the Corefile. */
  readonly dir: string;
  /** The CoreDNS binary under comparison, for a case whose outside system is CoreDNS itself (a gRPC upstream). */
  readonly coredns: string;
}

/** An outside system a case started (a primary server, etcd), and what the Corefile needs of it. */
export interface Outside {
  /** More `{name}` substitutions for the Corefile. */
  readonly vars?: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export interface DifferentialCase {
  /** The directive under comparison: `npm run differential -- PLUGIN` runs its cases. */
  readonly plugin: string;
  /** The case's name in the report. */
  readonly name: string;
  /** Corefile text; `{port}` is the server's port, `{dir}` the case's directory. */
  readonly corefile: string;
  /** Files written into `{dir}` before the servers start, by relative path. */
  readonly files?: Readonly<Record<string, string>>;
  readonly queries: readonly DifferentialQuery[];
  /**
   * Differences kept on purpose: the query's label as the report prints it (`name TYPE`, then
   * ` tcp`, ` +do`, ` +nsid`, ` +bufsize=N` as asked) → why.
   */
  readonly kept?: Readonly<Record<string, string>>;
  /** Milliseconds to wait after both servers answer (a secondary's first transfer). */
  readonly settleMs?: number;
  /** Starts what the case needs outside the two servers. */
  setup?(context: CaseContext): Promise<Outside>;
}
