/**
 * @foghorn/plugin-transfer: `transfer` answers AXFR/IXFR for zones another plugin of the server
 * block serves (one that offers a `Transferer`, such as *file*) and sends NOTIFY when they
 * change (CoreDNS's *transfer* plugin).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

export { parseTransfer } from './setup.js';
export type { TransferOptions, XfrConfig } from './setup.js';
export { allowed, longestMatch, Transfer } from './transfer.js';
export { notifyMessage, sendNotifies } from './notify.js';

const plugin: PluginDefinition = definePlugin({ name: 'transfer', setup });

export default plugin;
