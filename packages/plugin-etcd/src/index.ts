/**
 * etcd: SkyDNS service discovery from etcd v3, as CoreDNS's *etcd*, over etcd's JSON gateway.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'etcd', setup });
export default plugin;
export { defaultEndpoint, defaultMaxLeaseTtl, defaultMinLeaseTtl, parseEtcd, parseTtl, setup } from './setup.js';
export type { EtcdOptions } from './setup.js';
export { EtcdClient, EtcdError, endpointUrl, prefixEnd } from './client.js';
export type { ClientOptions, KeyValue, TlsFiles } from './client.js';
export { Etcd, EtcdServices } from './handler.js';
export type { EtcdSettings } from './handler.js';
export { domain, group, parseService, path, pathWithWildcard, split255, targetStrip } from './service.js';
export type { Service } from './service.js';
