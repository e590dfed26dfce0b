/**
 * `foghorn -workers N`: N processes serve one set of ports, supervised by a primary process that
 * serves nothing (docs/architecture.md, "Workers"). Node's `cluster` module shares each listening
 * socket between the workers; this file is what core and plugins see of that arrangement.
 *
 * A plugin whose answer must cover every worker (*prometheus*' `/metrics`, *health*, *ready*)
 * registers what its worker answers with {@link WorkerGroup.answer} and asks all of them with
 * {@link WorkerGroup.ask}; it never imports `node:cluster`. In a single process there is no
 * group: `Controller.workers` is undefined and plugins answer for their own process.
 */
import cluster from 'node:cluster';

/** One worker's answer to {@link WorkerGroup.ask}: its value, or why there is none. */
export type WorkerAnswer =
  | { readonly worker: number; readonly value: unknown }
  /** The worker is down, did not answer in time, has nothing registered for the topic, or threw. */
  | {
      readonly worker: number;
      readonly error: string;
      /**
       * Set when the worker is not running: it died and the primary is starting it again (or it
       * has not come up yet), as opposed to running and not answering. The others serve its share meanwhile.
       */
      readonly down?: true;
      /** For a worker that is down: what its last process answered to this topic, if it ever did ({@link WorkerGroup.predecessor}). */
      readonly last?: unknown;
    };

/** The worker processes serving one set of ports, seen from one of them. */
export interface WorkerGroup {
  /** This worker's number, 1 to {@link size}. */
  readonly worker: number;
  /** How many workers serve (the `-workers` value). */
  readonly size: number;
  /**
   * A random value the primary draws once and hands every worker it forks, restarted ones
   * included: what the workers agree on without asking (*loop*'s probe name, which must be the
   * same in every worker because any of them may receive the probe).
   */
  readonly id: string;
  /**
   * What this worker answers when any worker asks `topic`. The value must survive the IPC
   * channel's structured clone (plain data). A later registration for a topic replaces the
   * earlier one, so a plugin may register again on every setup.
   */
  answer(topic: string, respond: () => unknown): void;
  /**
   * Asks every worker, this one included, and resolves with one answer per worker in worker
   * order. A worker that is down, restarting or slower than `timeoutMs` gets an error entry:
   * the promise itself does not reject.
   */
  ask(topic: string, timeoutMs: number): Promise<WorkerAnswer[]>;
  /**
   * What the process this worker replaces last answered to `topic` before it died (the primary
   * keeps every worker's last answer to each topic), or undefined on a first start or when it
   * never answered. *prometheus* carries the dead process's counters on with it, so the sums a
   * scrape reports never go down on a restart.
   */
  predecessor(topic: string): unknown;
  /**
   * Reloads the Corefile in every worker, one after another, each keeping its listeners (the
   * *reload* plugin's and SIGUSR1's path). Resolves with undefined when all of them serve the
   * new Corefile, or with the first error (the workers not yet reloaded keep the old one).
   */
  reload(): Promise<Error | undefined>;
}

/**
 * Whether this process binds its listening sockets through the cluster primary. In a cluster
 * worker a socket bound with `exclusive: true` would be a second socket on the port, which fails
 * without SO_REUSEPORT (Node 20 has none for UDP); with `exclusive: false` the primary binds once
 * and every worker serves the same socket. A single process binds exclusively, as before.
 */
export const sharedHandles: boolean = cluster.isWorker;
