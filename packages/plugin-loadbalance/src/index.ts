/**
 * loadbalance: randomizes the order of A, AAAA and MX records in replies (round_robin), moves a
 * weighted choice to the top (weighted), and puts preferred subnets first (prefer), as CoreDNS's
 * *loadbalance*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setupWith } from './setup.js';
import type { RandomInt } from './policy.js';

/** A `loadbalance` plugin whose random draws come from `random` (for tests); the default uses Math.random. */
export function createLoadbalancePlugin(random?: RandomInt): PluginDefinition {
  return definePlugin({ name: 'loadbalance', setup: setupWith(random) });
}

const plugin: PluginDefinition = createLoadbalancePlugin();
export default plugin;
export { defaultReloadMs, LoadBalance, parseLoadbalance } from './setup.js';
export type { LoadbalanceOptions } from './setup.js';
export { Balancer, BalancingWriter } from './balance.js';
export { Kind, preferSubnets, roundRobin, weighted } from './policy.js';
export type { RandomInt, RecordView, WeightTable } from './policy.js';
export { parseWeights, WeightFile, WeightFileOpenError } from './weights.js';
export { contains, parseCidr, parseIp } from './ip.js';
export type { Subnet } from './ip.js';
