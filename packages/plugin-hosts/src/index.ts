/**
 * hosts: serves A, AAAA and PTR records from a hosts(5) file and inline entries, as CoreDNS's
 * *hosts*.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'hosts', setup });
export default plugin;
export { defaultPath, defaultReloadMs, defaultTtl, HostsFileReader, parseHosts, setup } from './setup.js';
export type { HostsOptions } from './setup.js';
export { Hosts, HostsData } from './handler.js';
export type { HandlerOptions } from './handler.js';
export { addressFromReverse, HostsMap, lookup, parseHostsFile, wildcardOf } from './hostsfile.js';
export type { ParseOptions } from './hostsfile.js';
export { createHostsMetrics } from './metrics.js';
export type { HostsMetrics } from './metrics.js';
