/**
 * route53: zones read from AWS Route 53 and served authoritatively, as CoreDNS's *route53*,
 * with the Route 53 REST API signed by hand (SigV4) instead of the AWS SDK.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { setup } from './setup.js';

const plugin: PluginDefinition = definePlugin({ name: 'route53', setup });
export default plugin;
export { parseLine, parseRoute53, setup, updateZones } from './setup.js';
export type { Route53Options } from './setup.js';
export { defaultEndpoint, parseRecordSets, Route53Client, Route53Error } from './client.js';
export type { RecordSet } from './client.js';
export { parseSharedCredentials, resolveCredentials } from './credentials.js';
export type { CredentialSource } from './credentials.js';
export { signGet } from './sigv4.js';
export type { AwsCredentials } from './sigv4.js';
export { buildZone, maybeUnescape } from './zone.js';
export { Route53 } from './handler.js';
export type { HostedZone, Zones } from './handler.js';
