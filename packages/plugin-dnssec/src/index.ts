/**
 * dnssec: signs replies on the fly, as CoreDNS's *dnssec*: RRSIGs made with the zone's keys (from
 * BIND's key files) and cached, DNSKEY answered at the apex, denial of existence with NSEC black
 * lies.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'dnssec', setup });
export default plugin;
export { Dnssec } from './handler.js';
export { CLEAN_INTERVAL_MS, DEFAULT_CAPACITY, parseDnssec } from './setup.js';
export type { DnssecOptions } from './setup.js';
export { algorithms, parseKey, readKeyFiles, SigningKey } from './key.js';
export type { DnskeyData } from './key.js';
export { SignatureCache } from './cache.js';
export { createDnssecMetrics } from './metrics.js';
export type { DnssecMetrics } from './metrics.js';
export type { CachedSignature, RrsigData, RrsigFields } from './cache.js';
export { INCEPTION_OFFSET_SECONDS, ORIGINAL_TTL, signedData, Signer, signRRset, VALIDITY_SECONDS } from './signer.js';
export type { KeySet } from './signer.js';
