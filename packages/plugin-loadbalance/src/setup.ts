/**
 * Parsing `loadbalance [round_robin | weighted WEIGHTFILE] { reload DURATION | prefer CIDR... }`
 * (CoreDNS `plugin/loadbalance/setup.go`) and wiring the handler and the weight file.
 */
import { errorMessage, nextOrFailure, parseDuration, rootedPath } from '@foghorn/core';
import type { Controller, Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';
import { Balancer, BalancingWriter } from './balance.js';
import { parseCidr } from './ip.js';
import type { Subnet } from './ip.js';
import type { RandomInt } from './policy.js';
import { WeightFile } from './weights.js';

/** What a block's `loadbalance` directives configure (the last occurrence's policy wins). */
export interface LoadbalanceOptions {
  readonly policy: 'round_robin' | 'weighted';
  /** The weight file (weighted only), as written: relative paths are relative to the working directory. */
  readonly weightFile?: string;
  /** How often the weight file is re-read, in milliseconds; 0 never. */
  readonly reloadMs: number;
  /** `prefer` subnets, in order. */
  readonly prefer: readonly Subnet[];
}

/** CoreDNS's default weight file reload interval. */
export const defaultReloadMs = 30_000;

/** Parses every `loadbalance` of the block; throws CoreDNS's errors with their position. */
export function parseLoadbalance(c: Controller): LoadbalanceOptions {
  let options: { policy: 'round_robin' | 'weighted'; weightFile?: string; reloadMs: number; prefer: Subnet[] } = {
    policy: 'round_robin',
    reloadMs: defaultReloadMs,
    prefer: [],
  };
  while (c.next()) {
    const args = c.remainingArgs();
    const policy = args[0];
    if (policy === undefined || policy === 'round_robin') {
      if (args.length > 1) throw c.error(`unknown property for ${policy}`);
      options.policy = 'round_robin';
    } else if (policy === 'weighted') {
      if (args.length < 2) throw c.error('missing weight file argument');
      if (args.length > 2) throw c.error('unexpected argument(s)');
      let reloadMs = defaultReloadMs;
      // This block belongs to `weighted` alone: `prefer` is refused here, as in CoreDNS.
      while (c.nextBlock()) {
        const property = c.val();
        if (property !== 'reload') throw c.error(`unknown property '${property}'`);
        const values = c.remainingArgs();
        if (values.length < 1) throw c.error('reload duration value is missing');
        if (values.length > 1) throw c.error('unexpected argument');
        try {
          reloadMs = parseDuration(values[0]!);
        } catch {
          throw c.error(`invalid reload duration '${values[0]}'`);
        }
      }
      // A weighted directive replaces everything configured before it, prefer subnets included.
      options = { policy: 'weighted', weightFile: rootedPath(c, args[1]!), reloadMs, prefer: [] };
    } else {
      // CoreDNS gives this error no position; ours has one, like every other.
      throw c.error(`unknown policy: ${policy}`);
    }
    while (c.nextBlock()) {
      const property = c.val();
      if (property !== 'prefer') throw c.error(`unknown property '${property}'`);
      for (const cidr of c.remainingArgs()) {
        try {
          options.prefer.push(parseCidr(cidr));
        } catch (error) {
          throw c.error(`invalid CIDR "${cidr}": ${errorMessage(error)}`);
        }
      }
    }
  }
  return options;
}

/** The handler: hands the rest of the chain a writer that reorders the reply. */
export class LoadBalance implements Handler {
  readonly name = 'loadbalance';

  constructor(
    private readonly balancer: Balancer,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    return nextOrFailure(this.name, this.next, req, new BalancingWriter(w, req.qtype, this.balancer));
  }
}

/** The setup, with the random source injectable (tests pick the weighted outcome). */
export function setupWith(random?: RandomInt): (c: Controller) => void {
  return (c) => {
    const options = parseLoadbalance(c);
    const balancer = new Balancer(options.policy, options.prefer, random);
    if (options.policy === 'weighted' && options.weightFile !== undefined) {
      const file = new WeightFile(options.weightFile, (table) => (balancer.weights = table), c.log);
      let stop: (() => void) | undefined;
      c.onStartup(async () => {
        try {
          await file.start(options.reloadMs);
        } catch (error) {
          // CoreDNS's plugin.Error("loadbalance", err).
          throw new Error(`plugin/loadbalance: ${errorMessage(error)}`, { cause: error });
        }
        stop = file.watch(options.reloadMs);
      });
      c.onShutdown(() => stop?.());
    }
    c.addHandler((next) => new LoadBalance(balancer, next));
  };
}

/** Setup with the default (cryptographic) random source. */
export const setup: (c: Controller) => void = setupWith();
