/**
 * health: parsing `health [ADDRESS] [{ lameduck DURATION }]` and wiring the endpoint into the
 * lifecycle (docs/compatibility.md, "Lifecycle"; CoreDNS's plugin/health). It adds no handler: health is not on the query path.
 */
import { defineShared, errorMessage, formatDuration, HttpEndpoints, parseDuration, parseHttpAddress } from '@foghorn/core';
import type { Controller, Logger, WorkerGroup } from '@foghorn/core';
import { HEALTH_TOPIC, HealthEndpoint } from './endpoint.js';
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
    address = parseHttpAddress(c, address);
    while (c.nextBlock()) {
      if (c.val() !== 'lameduck') throw c.error(`unknown property '${c.val()}'`);
      const values = c.remainingArgs();
      if (values.length !== 1) throw c.argError();
      const value = values[0]!;
      try {
        lameduckMs = parseDuration(value);
      } catch (error) {
        throw c.error(`unable to parse lameduck duration value: '${value}' : ${errorMessage(error)}`);
      }
    }
  }
  return { address, lameduckMs };
}

/**
 * Process-wide state (kept across reloads in `c.shared`): one listener per distinct address,
 * by design instead of CoreDNS's SO_REUSEPORT double bind, and how many blocks of the
 * old configuration a reload has suspended.
 */
class HealthState {
  readonly endpoints = new HttpEndpoints<HealthEndpoint>();
  /** Sites closed by onRestart that neither onRestartFailed nor onShutdown has seen yet. */
  suspended = 0;
  constructor(readonly metrics: HealthMetrics) {}
}

const sharedKey = defineShared<HealthState>('health');

function stateOf(c: Pick<Controller, 'shared' | 'registry'>): HealthState {
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
  return stateOf(c)
    .endpoints.open()
    .map((endpoint) => ({ address: endpoint.address, port: endpoint.port, url: endpoint.url }));
}

/** One block's `health`: it holds the listener for its address while its configuration runs. */
class HealthSite {
  private suspended = false;
  private readonly endpoint: HealthEndpoint;

  constructor(
    private readonly options: HealthOptions,
    private readonly state: HealthState,
    private readonly log: Logger,
    workers: WorkerGroup | undefined,
  ) {
    // Made closed here; it binds in onStartup, the first time any block holds it.
    this.endpoint = state.endpoints.get(options.address, (address) => new HealthEndpoint({ address, metrics: state.metrics, log, workers }));
  }

  /** onStartup and onRestartFailed: a listen failure aborts the start (or the reload). */
  start(): Promise<void> {
    return this.endpoint.acquire(this);
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
    if (!this.endpoint.holds(this)) return;
    if (this.state.suspended === 0 && this.options.lameduckMs > 0) {
      this.log.info(`Going into lameduck mode for ${formatDuration(this.options.lameduckMs)}`);
      await new Promise((resolve) => setTimeout(resolve, this.options.lameduckMs));
    }
    await this.release();
  }

  /** onFinalShutdown, and the end of every other path: close if this was the last user. */
  release(): Promise<void> {
    return this.endpoint.release(this);
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
  const site = new HealthSite(options, stateOf(c), c.log, c.workers);
  // Answering at all is the answer: this worker's event loop runs and the primary reaches it.
  c.workers?.answer(HEALTH_TOPIC, () => 'OK');
  c.onStartup(() => site.start());
  c.onRestart(() => site.suspend());
  c.onRestartFailed(() => site.resume());
  c.onShutdown(() => site.shutdown());
  c.onFinalShutdown(() => site.release());
}
