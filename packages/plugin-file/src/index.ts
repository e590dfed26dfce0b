/**
 * @foghorn/plugin-file: `file` serves zones from RFC 1035 zone files, authoritatively
 * (CoreDNS's *file* plugin). It offers its zones to *transfer* for AXFR/IXFR and NOTIFY.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

export { parseFile, defaultReloadMs } from './setup.js';
export type { FileOptions, ZoneConfig } from './setup.js';
export { FileZones } from './zones.js';

const plugin: PluginDefinition = definePlugin({ name: 'file', setup });

export default plugin;
