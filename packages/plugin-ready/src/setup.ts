/**
 * ready: parsing `ready [ADDRESS] [{ monitor until-ready|continuously }]` and wiring one /ready
 * listener per address, shared by every block and by successive configurations (spec 2.8, 3.4).
 */
import type { Controller, Logger } from '@foghorn/core';
import { splitHostPort } from '@foghorn/core';
import { ReadyEndpoint } from './endpoint.js';
import { ReadinessList } from './readiness.js';
import type { MonitorMode } from './readiness.js';

/** One block's `ready` configuration. */
export interface ReadyOptions {
  /** `host:port` to listen on; `:8181` means every address. */
  readonly address: string;
  readonly monitor: MonitorMode;
}

/** CoreDNS's default: port 8181 on every address. */
export const defaultReadyAddress = ':8181';
export const defaultMonitorMode: MonitorMode = 'until-ready';

/** Parses the block's `ready` (once per block). Pure: tokens in, options out, or a positioned error. */
export function parseReady(c: Controller): ReadyOptions {
  let address = defaultReadyAddress;
  let monitor = defaultMonitorMode;
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw c.error('this plugin can only be used once per Server Block');
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
      if (c.val() !== 'monitor') throw c.error(`unknown property '${c.val()}'`);
      const values = c.remainingArgs();
      if (values.length !== 1) throw c.argError();
      const value = values[0]!;
      if (value !== 'until-ready' && value !== 'continuously') throw c.error(`monitor type '${value}' not supported`);
      monitor = value;
    }
  }
  return { address, monitor };
}

/** One open /ready listener and the blocks using it. */
interface SharedEndpoint {
  readonly endpoint: ReadyEndpoint;
  readonly users: Set<ReadySite>;
}

/** Process-wide state, kept across reloads in `c.shared`. */
class ReadyState {
  readonly endpoints = new Map<string, SharedEndpoint>();
  readonly list = new ReadinessList();
}

const sharedKey = '@foghorn/plugin-ready';

function stateOf(c: Pick<Controller, 'shared'>): ReadyState {
  return c.shared(sharedKey, () => new ReadyState());
}

/** A /ready listener as bound, for tests and embedding programs (port 0 gets a real port). */
export interface ReadyListener {
  /** The ADDRESS as written, `:8181`. */
  readonly address: string;
  /** The bound port. */
  readonly port: number;
}

/** The /ready listeners now open in the process that `c` belongs to. */
export function readyListeners(c: Pick<Controller, 'shared'>): ReadyListener[] {
  return [...stateOf(c).endpoints.values()].map(({ endpoint }) => ({ address: endpoint.address, port: endpoint.port }));
}

/** One block's `ready`: it holds the listener for its address while its configuration runs. */
class ReadySite {
  private holding = false;

  constructor(
    private readonly options: ReadyOptions,
    private readonly state: ReadyState,
    private readonly c: Controller,
    private readonly log: Logger,
  ) {}

  /**
   * onStartup and onRestartFailed: report on this configuration's probes and open (or join) the
   * listener. As in CoreDNS, a listen failure does not abort the start; unlike CoreDNS, which
   * stays silent, it is logged.
   */
  async start(): Promise<void> {
    // The probes of every block: readiness is process-wide, like the listener.
    this.state.list.use(this.c.readinessProbes(), this.options.monitor);
    if (this.holding) return;
    let shared = this.state.endpoints.get(this.options.address);
    if (!shared) {
      const endpoint = new ReadyEndpoint({ address: this.options.address, list: this.state.list, log: this.log });
      try {
        await endpoint.open();
      } catch (error) {
        this.log.error(`Failed to start ready handler: ${(error as Error).message}`);
        return;
      }
      shared = { endpoint, users: new Set() };
      this.state.endpoints.set(this.options.address, shared);
    }
    shared.users.add(this);
    this.holding = true;
  }

  /**
   * onRestart, onShutdown and onFinalShutdown: let go of the listener, closing it with its last
   * user. On shutdown this runs before *health*'s lameduck wait (directive order), so /ready
   * refuses connections for the whole lameduck period, which is what Kubernetes relies on.
   */
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
}

/** Parses, then registers the lifecycle hooks; the listener opens only in onStartup. */
export function setup(c: Controller): void {
  const options = parseReady(c);
  const site = new ReadySite(options, stateOf(c), c, c.log);
  c.onStartup(() => site.start());
  c.onRestart(() => site.release());
  c.onRestartFailed(() => site.start());
  c.onShutdown(() => site.release());
  c.onFinalShutdown(() => site.release());
}
