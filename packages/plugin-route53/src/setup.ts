/**
 * Parsing `route53 [ZONE:HOSTED_ZONE_ID...] { aws_access_key [ID KEY] | aws_endpoint ENDPOINT |
 * credentials PROFILE [FILENAME] | fallthrough [ZONES...] | refresh DURATION }` (CoreDNS
 * `plugin/route53/setup.go`) and keeping the zones fresh. Setup only parses; at startup every
 * ZONE:ID pair is checked with the API and read, and a failure stops the start as in CoreDNS.
 * Then each zone is read again every `refresh`; a failed read logs and keeps the zone served.
 */
import { errorMessage, fallthroughZones, normalizeZone, parseDuration } from '@foghorn/core';
import type { Controller, Logger } from '@foghorn/core';
import { defaultEndpoint, Route53Client } from './client.js';
import { resolveCredentials } from './credentials.js';
import type { CredentialSource } from './credentials.js';
import { Route53 } from './handler.js';
import type { HostedZone } from './handler.js';
import type { AwsCredentials } from './sigv4.js';
import { buildZone } from './zone.js';

/** One `route53` line. */
export interface Route53Options {
  /** ZONE (as written) → hosted zone IDs, in Corefile order. */
  readonly zones: ReadonlyMap<string, readonly string[]>;
  /** `aws_access_key ID KEY` (deprecated in CoreDNS). */
  readonly accessKey: AwsCredentials | undefined;
  readonly endpoint: string;
  /** `credentials PROFILE [FILENAME]`. */
  readonly profile: string | undefined;
  readonly credentialsFile: string | undefined;
  /** `fallthrough [ZONES...]`: null when off. */
  readonly fallthrough: readonly string[] | null;
  /** Time between reads of the zones, in milliseconds; one minute by default. */
  readonly refreshMs: number;
}

/** Parses one `route53` line and its block; the dispenser is at the directive. */
export function parseLine(c: Controller): Route53Options {
  const zones = new Map<string, string[]>();
  const pairs = new Set<string>();
  for (const arg of c.remainingArgs()) {
    const colon = arg.indexOf(':');
    const name = arg.slice(0, colon);
    const id = arg.slice(colon + 1);
    if (colon < 0 || name === '' || id === '') throw c.error(`invalid zone ${JSON.stringify(arg)}`);
    if (pairs.has(arg)) throw c.error(`conflict zone ${JSON.stringify(arg)}`);
    pairs.add(arg);
    zones.set(name, [...(zones.get(name) ?? []), id]);
  }
  let accessKey: AwsCredentials | undefined;
  let endpoint = defaultEndpoint;
  let profile: string | undefined;
  let credentialsFile: string | undefined;
  let fallthrough: string[] | null = null;
  let refreshMs = 60_000;
  while (c.nextBlock()) {
    const property = c.val();
    switch (property) {
      case 'aws_access_key': {
        const v = c.remainingArgs();
        if (v.length < 2) throw c.error(`invalid access key: '[${v.join(' ')}]'`);
        accessKey = { accessKeyId: v[0]!, secretAccessKey: v[1]! };
        c.log.warning('Save aws_access_key in Corefile has been deprecated, please use other authentication methods instead');
        break;
      }
      case 'aws_endpoint':
        if (!c.nextArg()) throw c.argError();
        try {
          new URL(c.val());
          endpoint = c.val();
        } catch {
          throw c.error(`invalid aws_endpoint ${JSON.stringify(c.val())}: not a URL`);
        }
        break;
      case 'upstream':
        c.remainingArgs();
        break;
      case 'credentials':
        if (!c.nextArg()) throw c.argError();
        profile = c.val();
        if (c.nextArg()) credentialsFile = c.val();
        if (c.nextArg()) throw c.error(`unknown property ${JSON.stringify(c.val())}`);
        break;
      case 'fallthrough':
        fallthrough = fallthroughZones(c, c.remainingArgs());
        break;
      case 'refresh': {
        if (!c.nextArg()) throw c.argError();
        const text = /^[+-]?\d+$/.test(c.val()) ? `${c.val()}s` : c.val();
        try {
          refreshMs = parseDuration(text);
        } catch (error) {
          throw c.error(`Unable to parse duration: ${errorMessage(error)}`);
        }
        if (refreshMs <= 0) throw c.error(`refresh interval must be greater than 0: ${JSON.stringify(text)}`);
        break;
      }
      default:
        throw c.error(`unknown property ${JSON.stringify(property)}`);
    }
  }
  return { zones, accessKey, endpoint, profile, credentialsFile, fallthrough, refreshMs };
}

/** Every `route53` line of the block (each one is its own handler, as in CoreDNS). */
export function parseRoute53(c: Controller): Route53Options[] {
  const lines: Route53Options[] = [];
  while (c.next()) lines.push(parseLine(c));
  return lines;
}

/**
 * Reads every hosted zone of `zones` once; a zone whose read fails keeps its data. Rejects with
 * CoreDNS's `errors updating zones: [...]` when any failed, after all were tried.
 */
export async function updateZones(client: Route53Client, zones: ReadonlyMap<string, readonly HostedZone[]>, log: Logger): Promise<void> {
  const errors: string[] = [];
  await Promise.all(
    [...zones].map(async ([name, hosted]) => {
      for (const zone of hosted) {
        try {
          zone.data = buildZone(name, await client.listRecordSets(zone.id), log);
        } catch (error) {
          errors.push(`failed to list resource records for ${name}:${zone.id} from route53: ${errorMessage(error)}`);
          return;
        }
      }
    }),
  );
  if (errors.length > 0) throw new Error(`errors updating zones: [${errors.join(' ')}]`);
}

/** Parses `route53`, and per line: the client, the zones, their first read at startup and the refresh loop. */
export function setup(c: Controller): void {
  for (const options of parseRoute53(c)) {
    const source: CredentialSource = { static: options.accessKey, profile: options.profile, file: options.credentialsFile };
    const client = new Route53Client(options.endpoint, () => resolveCredentials(source));
    const zones = new Map<string, HostedZone[]>();
    for (const [name, ids] of options.zones) zones.set(normalizeZone(name), ids.map((id) => ({ id, data: null })));
    const names = [...zones.keys()];
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    c.onStartup(async () => {
      for (const [name, hosted] of zones) {
        for (const zone of hosted) {
          try {
            await client.checkHostedZone(name, zone.id);
          } catch (error) {
            throw new Error(`plugin/route53: failed to create route53 plugin: ${errorMessage(error)}`);
          }
        }
      }
      try {
        await updateZones(client, zones, c.log);
      } catch (error) {
        throw new Error(`plugin/route53: failed to initialize route53 plugin: ${errorMessage(error)}`);
      }
      // One read at a time: the next starts `refresh` after the last one ended (CoreDNS's timer reset).
      const again = (): void => {
        if (stopped) return;
        timer = setTimeout(() => {
          updateZones(client, zones, c.log)
            .catch((error: unknown) => c.log.error(`Failed to update zones [${names.join(' ')}]: ${errorMessage(error)}`))
            .finally(again);
        }, options.refreshMs);
        timer.unref();
      };
      again();
    });
    c.onShutdown(() => {
      stopped = true;
      clearTimeout(timer);
      client.close();
    });
    c.addHandler((next) => new Route53(zones, options.fallthrough, next));
  }
}
