/**
 * pprof: parsing `pprof [ADDRESS] { block [RATE] }` (CoreDNS v1.14's plugin/pprof/setup.go,
 * with its error texts) and the listener's lifecycle. Not on the query path: no handler.
 */
import { defineShared, errorMessage, errOnce, HttpEndpoint, HttpEndpoints, parseHttpAddress } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { servePprof } from './endpoint.js';
import { startHeapSampling, stopHeapSampling } from './profiles.js';

/** CoreDNS's default: loopback only, so profiles are never exposed by accident. */
export const DEFAULT_PPROF_ADDRESS = 'localhost:6053';

export interface PprofOptions {
  /** `host:port` to listen on. */
  readonly address: string;
  /** `block [RATE]`: accepted, without effect in Node (see the README); 0 when not given. */
  readonly blockRate: number;
}

/** Parses the block's one `pprof`. Pure. */
export function parsePprof(c: Controller): PprofOptions {
  let address = DEFAULT_PPROF_ADDRESS;
  let blockRate = 0;
  let seen = false;
  while (c.next()) {
    if (seen) throw errOnce(c);
    seen = true;
    address = parseHttpAddress(c, DEFAULT_PPROF_ADDRESS);
    while (c.nextBlock()) {
      if (c.val() !== 'block') throw c.error(`unknown property '${c.val()}'`);
      const args = c.remainingArgs();
      if (args.length > 1) throw c.argError();
      blockRate = 1;
      if (args.length === 1) {
        const text = args[0]!;
        if (!/^[+-]?\d+$/.test(text)) throw c.error(`property 'block' invalid integer value '${text}'`);
        blockRate = Number(text);
      }
    }
  }
  return { address, blockRate };
}

/** One pprof listener per address, kept across reloads and shared by blocks. */
const Endpoints = defineShared<HttpEndpoints>('pprof/endpoints');

/** Parses, then opens the listener in onStartup (failing the start when it cannot, as CoreDNS does). */
export function setup(c: Controller): void {
  const options = parsePprof(c);
  const endpoint = c.shared(Endpoints, () => new HttpEndpoints()).get(
    options.address,
    (address) => new HttpEndpoint({ address, handler: servePprof(c.log), onError: (error) => c.log.error(`pprof handler on ${address}: ${error.message}`) }),
  );
  const owner = {};
  let sampling = false;
  const start = async (): Promise<void> => {
    try {
      await endpoint.acquire(owner);
    } catch (error) {
      c.log.error(`Failed to start pprof handler: ${errorMessage(error)}`);
      throw error;
    }
    if (!sampling) {
      sampling = true;
      await startHeapSampling();
    }
  };
  const stop = async (): Promise<void> => {
    await endpoint.release(owner);
    if (sampling) {
      sampling = false;
      await stopHeapSampling();
    }
  };
  c.onStartup(start);
  c.onRestart(() => endpoint.close());
  c.onRestartFailed(start);
  c.onShutdown(stop);
  c.onFinalShutdown(() => endpoint.close());
}
