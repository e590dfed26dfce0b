/**
 * health: parsing `health [ADDRESS] [{ lameduck DURATION }]` and wiring the endpoint into the
 * lifecycle (spec 2.8, 3.3). It adds no handler: health is not on the query path.
 */
import { formatDuration, parseDuration } from '@foghorn/core';
import type { Controller, Logger } from '@foghorn/core';
import { splitHostPort } from '@foghorn/core';
import { HealthEndpoint } from './endpoint.js';
import { createHealthMetrics } from './metrics.js';
import type { HealthMetrics } from './metrics.js';

/** One block's `health` configuration. */
export interface HealthOptions {
  /** `host:port` to listen on; `:8080` means every address. */
  readonly address: string;
  /** How long shutdown waits with /health and DNS still answering; 0 = no wait. */
  readonly lameduckMs: number;
}

/** CoreDNS's default: port 8080 on every address. */
export const defaultHealthAddress = ':8080';
export const defaultLameduckMs = 0;

/**
 * Parses every `health` line of the block; as in CoreDNS the directive may repeat and the last
 * values win. Pure: tokens in, options out, or a positioned error.
 */
export function parseHealth(c: Controller): HealthOptions {
  let address = defaultHealthAddress;
  let lameduckMs = defaultLameduckMs;
  while (c.next()) {
    const args = c.remainingArgs();
    if (args.length > 1) throw c.argError();
    if (args.length === 1) {
      address = args[0]!;
      try {
        splitHostPort(address);
      } catch (error) {
        throw c.error((error as Error).message);
      }
    }
    while (c.nextBlock()) {
      if (c.val() !== 'lameduck') throw c.error(`unknown property '${c.val()}'`);
      const values = c.remainingArgs();
      if (values.length !== 1) throw c.argError();
      const value = values[0]!;
      try {
        lameduckMs = parseDuration(value);
      } catch (error) {
        throw c.error(`unable to parse lameduck duration value: '${value}' : ${(error as Error).message}`);
      }
    }
  }
  return { address, lameduckMs };
}

/** One open /health listener and the blocks using it. */
interface SharedEndpoint {
  readonly endpoint: HealthEndpoint;
  readonly users: Set<HealthSite>;
}

/**
 * Process-wide state (kept across reloads in `c.shared`): one listener per distinct address,
 * as the spec asks instead of CoreDNS's SO_REUSEPORT double bind, and how many blocks of the
 * old configuration a reload has suspended.
 */
class HealthState {
  readonly endpoints = new Map<string, SharedEndpoint>();
  /** Sites closed by onRestart that neither onRestartFailed nor onShutdown has seen yet. */
  suspended = 0;
  constructor(readonly metrics: HealthMetrics) {}
}

const sharedKey = '@foghorn/plugin-health';

function stateOf(c: Controller): HealthState {
  return c.shared(sharedKey, () => new HealthState(createHealthMetrics(c.registry)));
}

/** A /health listener as bound, for tests and embedding programs (port 0 gets a real port). */
export interface HealthListener {
  /** The ADDRESS as written, `:8080`. */
  readonly address: string;
  /** The bound port. */
  readonly port: number;
  /** What the self-probe requests, `http://localhost:8080/health`. */
  readonly url: string;
}

/** The /health listeners now open in the process that `c` belongs to. */
export function healthListeners(c: Pick<Controller, 'shared' | 'registry'>): HealthListener[] {
  const state = c.shared(sharedKey, () => new HealthState(createHealthMetrics(c.registry)));
  return [...state.endpoints.values()].map(({ endpoint }) => ({ address: endpoint.address, port: endpoint.port, url: endpoint.url }));
}

/** One block's `health`: it holds the listener for its address while its configuration runs. */
class HealthSite {
  private holding = false;
  private suspended = false;

  constructor(
    private readonly options: HealthOptions,
    private readonly state: HealthState,
    private readonly log: Logger,
  ) {}

  /** onStartup and onRestartFailed: a listen failure aborts the start (or the reload). */
  async start(): Promise<void> {
    if (this.holding) return;
    let shared = this.state.endpoints.get(this.options.address);
    if (!shared) {
      const endpoint = new HealthEndpoint({ address: this.options.address, metrics: this.state.metrics, log: this.log });
      await endpoint.open();
      shared = { endpoint, users: new Set() };
      this.state.endpoints.set(this.options.address, shared);
    }
    shared.users.add(this);
    this.holding = true;
  }

  /** onRestart: the new configuration needs the port, so let go of it now. */
  async suspend(): Promise<void> {
    if (!this.suspended) {
      this.suspended = true;
      this.state.suspended++;
    }
    await this.release();
  }

  /** onRestartFailed: the old configuration keeps serving, and so does its /health. */
  async resume(): Promise<void> {
    this.unsuspend();
    await this.start();
  }

  /**
   * onShutdown. At exit: wait `lameduck` with /health still 200 and DNS still answering (the
   * DNS listeners close only after every hook), then close. Not applied on reload: an old
   * configuration was already closed by onRestart, and a new one torn down by a failed reload
   * (a reload is in flight while old sites are suspended) just closes.
   */
  async shutdown(): Promise<void> {
    if (this.suspended) {
      this.unsuspend();
      return;
    }
    if (!this.holding) return;
    if (this.state.suspended === 0 && this.options.lameduckMs > 0) {
      this.log.info(`Going into lameduck mode for ${formatDuration(this.options.lameduckMs)}`);
      await new Promise((resolve) => setTimeout(resolve, this.options.lameduckMs));
    }
    await this.release();
  }

  /** onFinalShutdown, and the end of every other path: close if this was the last user. */
  async release(): Promise<void> {
    if (!this.holding) return;
    this.holding = false;
    const shared = this.state.endpoints.get(this.options.address);
    if (!shared) return;
    shared.users.delete(this);
    if (shared.users.size > 0) return;
    this.state.endpoints.delete(this.options.address);
    await shared.endpoint.close();
  }

  private unsuspend(): void {
    if (!this.suspended) return;
    this.suspended = false;
    this.state.suspended--;
  }
}

/** Parses, then registers the lifecycle hooks; the listener opens only in onStartup. */
export function setup(c: Controller): void {
  const options = parseHealth(c);
  const site = new HealthSite(options, stateOf(c), c.log);
  c.onStartup(() => site.start());
  c.onRestart(() => site.suspend());
  c.onRestartFailed(() => site.resume());
  c.onShutdown(() => site.shutdown());
  c.onFinalShutdown(() => site.release());
}
