/**
 * Parsing `etcd [ZONES...] { fallthrough [ZONES...] | path PATH | endpoint ENDPOINT... |
 * credentials USERNAME PASSWORD | tls [CERT KEY] [CA] | min-lease-ttl TTL | max-lease-ttl TTL }`
 * (CoreDNS `plugin/etcd/setup.go`). Setup reads the TLS files and builds the client; no request
 * goes to etcd before the first query.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { errOnce, errorMessage, fallthroughZones, parseDuration, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { EtcdClient, endpointUrl } from './client.js';
import type { TlsFiles } from './client.js';
import { Etcd, EtcdServices } from './handler.js';

/** One block's `etcd` configuration. */
export interface EtcdOptions {
  /** Zones served: the arguments, else the server block's. */
  readonly zones: readonly string[];
  /** The first segment of every key (`path`), `skydns` by default. */
  readonly pathPrefix: string;
  readonly endpoints: readonly string[];
  /** `fallthrough [ZONES...]`: null when off, `['.']` for every name. */
  readonly fallthrough: readonly string[] | null;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** `tls`: client certificate and CA, undefined without the line. */
  readonly tls: TlsFiles | undefined;
  /** Bounds of a leased key's TTL in seconds (`min-lease-ttl`, `max-lease-ttl`). */
  readonly minLeaseTtl: number;
  readonly maxLeaseTtl: number;
}

export const defaultEndpoint = 'http://localhost:2379';
export const defaultMinLeaseTtl = 30;
export const defaultMaxLeaseTtl = 86400;

/**
 * CoreDNS's `parseTTL`: seconds from a plain number or a Go duration (`30`, `5m`, `2h30m`); an
 * empty text is 0.
 */
export function parseTtl(text: string): number {
  const s = text.trim();
  if (s === '') return 0;
  const withUnit = /^\d+$/.test(s) ? `${s}s` : s;
  let ms: number;
  try {
    ms = parseDuration(withUnit.replace(/^-/, ''));
  } catch {
    throw new Error("invalid TTL format, use format like '30', '30s', '5m', '1h', or '2h30m'");
  }
  if (withUnit.startsWith('-') && ms > 0) throw new Error('TTL must be non-negative');
  const seconds = Math.trunc(ms / 1000);
  if (seconds > 4294967295) throw new Error('TTL too large, maximum is 4294967295 seconds');
  return seconds;
}

function readFile(c: Controller, path: string, wrap: (error: string) => string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw c.error(wrap(errorMessage(error)));
  }
}

/** `tls [CERT KEY] [CA]` as CoreDNS's `NewTLSConfigFromArgs`: none, CA, CERT KEY, or CERT KEY CA. */
function parseTls(c: Controller, args: readonly string[]): TlsFiles {
  if (args.length > 3) throw c.error(`maximum of three arguments allowed for TLS config, found ${args.length}`);
  const files: { cert?: Buffer; key?: Buffer; ca?: Buffer } = {};
  if (args.length >= 2) {
    files.cert = readFile(c, args[0]!, (e) => `could not load TLS cert: ${e}`);
    files.key = readFile(c, args[1]!, (e) => `could not load TLS cert: ${e}`);
    try {
      createSecureContext({ cert: files.cert, key: files.key });
    } catch (error) {
      throw c.error(`could not load TLS cert: ${errorMessage(error)}`);
    }
  }
  const caPath = args.length === 1 ? args[0] : args[2];
  if (caPath !== undefined) {
    files.ca = readFile(c, caPath, (e) => `error reading ${caPath}: ${e}`);
    if (!files.ca.includes('-----BEGIN CERTIFICATE-----')) throw c.error(`could not read root certs: ${caPath} has no PEM certificate`);
  }
  return files;
}

/** Parses the block's `etcd` (once per block). */
export function parseEtcd(c: Controller): EtcdOptions {
  let zones: readonly string[] = c.zones;
  let pathPrefix = 'skydns';
  let endpoints: string[] = [defaultEndpoint];
  let fallthrough: string[] | null = null;
  let username: string | undefined;
  let password: string | undefined;
  let tls: TlsFiles | undefined;
  let minLeaseTtl = defaultMinLeaseTtl;
  let maxLeaseTtl = defaultMaxLeaseTtl;
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    zones = zonesFromArgs(c, c.remainingArgs(), { ignoreInvalid: true });
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'stubzones':
        case 'debug':
          // No-ops CoreDNS still accepts.
          break;
        case 'upstream':
          c.remainingArgs();
          break;
        case 'fallthrough':
          fallthrough = fallthroughZones(c, c.remainingArgs());
          break;
        case 'path':
          if (!c.nextArg()) throw c.argError();
          pathPrefix = c.val();
          break;
        case 'endpoint': {
          const args = c.remainingArgs();
          if (args.length === 0) throw c.argError();
          for (const arg of args) {
            try {
              endpointUrl(arg, false);
            } catch (error) {
              throw c.error(errorMessage(error));
            }
          }
          endpoints = args;
          break;
        }
        case 'tls':
          tls = parseTls(c, c.remainingArgs());
          break;
        case 'credentials': {
          const args = c.remainingArgs();
          if (args.length === 0) throw c.argError();
          if (args.length !== 2) throw c.error('credentials requires 2 arguments, username and password');
          [username, password] = args;
          break;
        }
        case 'min-lease-ttl':
        case 'max-lease-ttl': {
          if (!c.nextArg()) throw c.argError();
          let value: number;
          try {
            value = parseTtl(c.val());
          } catch (error) {
            throw c.error(`invalid ${property} value: ${errorMessage(error)}`);
          }
          if (property === 'min-lease-ttl') minLeaseTtl = value;
          else maxLeaseTtl = value;
          break;
        }
        default:
          throw c.error(`unknown property '${property}'`);
      }
    }
  }
  return { zones, pathPrefix, endpoints, fallthrough, username, password, tls, minLeaseTtl, maxLeaseTtl };
}

/** Parses `etcd`, builds its client and adds the handler; the client's connections close at shutdown. */
export function setup(c: Controller): void {
  const options = parseEtcd(c);
  const client = new EtcdClient({ endpoints: options.endpoints, tls: options.tls, username: options.username, password: options.password });
  c.onShutdown(() => client.close());
  const settings = {
    zones: options.zones,
    pathPrefix: options.pathPrefix,
    fallthrough: options.fallthrough,
    // CoreDNS falls back to the defaults for a bound of 0.
    minLeaseTtl: options.minLeaseTtl || defaultMinLeaseTtl,
    maxLeaseTtl: options.maxLeaseTtl || defaultMaxLeaseTtl,
  };
  const services = new EtcdServices(client, settings);
  c.addHandler((next) => new Etcd(services, settings, next));
}
