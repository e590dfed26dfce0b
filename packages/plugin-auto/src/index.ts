/**
 * @foghorn/plugin-auto: `auto` serves the zone files of a directory, authoritatively, picking
 * zones up, reloading and dropping them as their files come, change and go (CoreDNS's *auto*
 * plugin). It offers its zones to *transfer* for AXFR/IXFR and NOTIFY.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

export { parseAuto, defaultPattern, defaultTemplate, defaultReloadMs } from './setup.js';
export type { AutoConfig } from './setup.js';
export { expand, rewriteToExpand } from './template.js';

const plugin: PluginDefinition = definePlugin({ name: 'auto', setup });

export default plugin;
