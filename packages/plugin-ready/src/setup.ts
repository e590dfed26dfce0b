/**
 * ready: parsing `ready [ADDRESS] [{ monitor until-ready|continuously }]` and wiring one /ready
 * listener per address, shared by every block and by successive configurations (docs/compatibility.md, "Lifecycle"; CoreDNS's plugin/ready).
 */
import { defineShared, errOnce, errorMessage, HttpEndpoints, parseHttpAddress, ReadinessProbes } from '@foghorn/core';
import type { Controller, Logger } from '@foghorn/core';
import { READY_TOPIC, ReadyEndpoint } from './endpoint.js';
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
    if (seen++ > 0) throw errOnce(c);
    address = parseHttpAddress(c, address);
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

/** Process-wide state, kept across reloads in `c.shared`: one listener per address. */
class ReadyState {
  readonly endpoints = new HttpEndpoints<ReadyEndpoint>();
  readonly list = new ReadinessList();
}

const sharedKey = defineShared<ReadyState>('ready');

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
  return stateOf(c)
    .endpoints.open()
    .map((endpoint) => ({ address: endpoint.address, port: endpoint.port }));
}

/** One block's `ready`: it holds the listener for its address while its configuration runs. */
class ReadySite {
  private readonly endpoint: ReadyEndpoint;

  constructor(
    private readonly options: ReadyOptions,
    private readonly state: ReadyState,
    private readonly c: Controller,
    private readonly log: Logger,
  ) {
    // Made closed here; it binds in onStartup, the first time any block holds it.
    this.endpoint = state.endpoints.get(options.address, (address) => new ReadyEndpoint({ address, list: state.list, log, workers: c.workers }));
  }

  /**
   * onStartup and onRestartFailed: report on this configuration's probes and open (or join) the
   * listener. As in CoreDNS, a listen failure does not abort the start; unlike CoreDNS, which
   * stays silent, it is logged.
   */
  async start(): Promise<void> {
    // The probes of every block: readiness is process-wide, like the listener.
    this.state.list.use(this.c.use(ReadinessProbes), this.options.monitor);
    try {
      await this.endpoint.acquire(this);
    } catch (error) {
      this.log.error(`Failed to start ready handler: ${errorMessage(error)}`);
    }
  }

  /**
   * onRestart, onShutdown and onFinalShutdown: let go of the listener, closing it with its last
   * user. On shutdown this runs before *health*'s lameduck wait (directive order), so /ready
   * refuses connections for the whole lameduck period, which is what Kubernetes relies on.
   */
  release(): Promise<void> {
    return this.endpoint.release(this);
  }
}

/** Parses, then registers the lifecycle hooks; the listener opens only in onStartup. */
export function setup(c: Controller): void {
  const options = parseReady(c);
  const state = stateOf(c);
  const site = new ReadySite(options, state, c, c.log);
  // What this worker tells the one whose /ready was asked (endpoint.ts).
  c.workers?.answer(READY_TOPIC, () => state.list.notReady());
  c.onStartup(() => site.start());
  c.onRestart(() => site.release());
  c.onRestartFailed(() => site.start());
  c.onShutdown(() => site.release());
  c.onFinalShutdown(() => site.release());
}
