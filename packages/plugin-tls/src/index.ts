/**
 * tls: the certificate, key and client policy of a server block's DNS-over-TLS (`tls://`) and
 * DNS-over-HTTPS (`https://`) listeners, as CoreDNS's tls plugin.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'tls', setup });
export default plugin;

export { loadTls, parseTls, setup } from './setup.js';
export type { TlsOptions } from './setup.js';
