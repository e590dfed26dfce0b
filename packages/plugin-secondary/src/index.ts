/**
 * @foghorn/plugin-secondary: `secondary` serves zones transferred (AXFR) from primary servers,
 * refreshed by their SOA timers and by NOTIFY (CoreDNS's *secondary* plugin). It offers its zones
 * to *transfer*, so they can be transferred on to further secondaries.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

export { parseSecondary, defaultMaxRecords, transferTimeoutMs, transferDeadlineMs } from './setup.js';
export type { SecondaryOptions } from './setup.js';
export type { SecondaryConfig } from './zones.js';
export { primarySerial, transferIn } from './axfr.js';
export type { TransferLimits, TransferredZone } from './axfr.js';

const plugin: PluginDefinition = definePlugin({ name: 'secondary', setup });

export default plugin;
