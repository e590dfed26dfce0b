/**
 * Parsing `grpc` (CoreDNS's plugin/grpc/setup.go) and wiring its handler. Once per server block.
 *
 * ~~~ txt
 * grpc FROM TO... {
 *     except IGNORED_NAMES...
 *     tls [CERT KEY] [CA]
 *     tls_servername NAME
 *     policy random|round_robin|sequential
 *     fallthrough [ZONES...]
 * }
 * ~~~
 *
 * Setup reads the files it names (resolv.conf, TLS material) and nothing else: gRPC itself is
 * loaded and the channels made in OnStartup, so `-validate` and a Corefile without `grpc` never
 * load `@grpc/grpc-js`.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { defineShared, errOnce, errorAt, errorMessage, fallthroughZones, zonesFromArgs } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { Grpc } from './handler.js';
import type { GrpcRuntime } from './handler.js';
import { createGrpcMetrics } from './metrics.js';
import type { GrpcMetrics } from './metrics.js';
import type { Policy } from './policy.js';
import { parseUpstream, UpstreamError } from './upstream.js';
import type { Upstream } from './upstream.js';

/** The `tls` line: each file read; no file means the system's CAs and no client certificate. */
export interface TlsFiles {
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly ca?: Buffer;
}

/** What one `grpc` line configures. */
export interface GrpcOptions {
  /** FROM, normalised: lower-case, fully qualified. */
  readonly from: string;
  /** Upstreams in configuration order (CoreDNS keeps duplicates, and so do we). */
  readonly upstreams: readonly Upstream[];
  /** `except`: names under these are not proxied (FROM itself always is). */
  readonly except: readonly string[];
  /** TLS to the upstreams: set by `tls` or by `tls_servername` alone; null for plaintext. */
  readonly tls: TlsFiles | null;
  /** `tls_servername`: the name sent in SNI and checked in the certificate. */
  readonly tlsServerName: string | undefined;
  readonly policy: Policy;
  /** `fallthrough` zones, null without the option. */
  readonly fallthrough: readonly string[] | null;
}

/** At most this many upstreams (CoreDNS's `max`). */
export const MAX_UPSTREAMS = 15;

/** Go's words for a file that cannot be read (`open FILE: no such file or directory`). */
function openError(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `open ${path}: no such file or directory`;
  if (code === 'EACCES') return `open ${path}: permission denied`;
  if (code === 'EISDIR') return `read ${path}: is a directory`;
  return errorMessage(error);
}

function readTlsFile(token: Token, error: (message: string) => string): Buffer {
  try {
    return readFileSync(token.text);
  } catch (e) {
    throw errorAt(token, error(openError(token.text, e)));
  }
}

/** `tls [CERT KEY] [CA]` with CoreDNS's `NewTLSConfigFromArgs` meanings and error texts, each at its file's token. */
function parseTls(c: Controller): TlsFiles {
  const args = c.remainingArgTokens();
  if (args.length > 3) throw c.argError();
  const caToken = args.length === 1 ? args[0] : args[2];
  let files: TlsFiles = {};
  if (args.length >= 2) {
    const [certToken, keyToken] = args as [Token, Token];
    const cert = readTlsFile(certToken, (m) => `could not load TLS cert: ${m}`);
    const key = readTlsFile(keyToken, (m) => `could not load TLS cert: ${m}`);
    try {
      createSecureContext({ cert, key });
    } catch (error) {
      throw errorAt(certToken, `could not load TLS cert: ${errorMessage(error)}`);
    }
    files = { cert, key };
  }
  if (caToken !== undefined) {
    const ca = readTlsFile(caToken, (m) => `error reading ${caToken.text}: ${m}`);
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw errorAt(caToken, `could not read root certs: no certificate in ${caToken.text}`);
    files = { ...files, ca };
  }
  return files;
}

function parseFrom(c: Controller): string {
  const text = c.val();
  // CoreDNS's NormalizeExact; only the first zone of a CIDR that expands to several is used.
  const zone = zonesFromArgs(c, [text], { ignoreInvalid: true })[0];
  // miekg/dns's IsDomainName, which NormalizeExact applies: labels up to 63 octets, names up to 255.
  if (zone === undefined || zone.length > 255 || zone.split('.').some((label) => label.length > 63)) throw c.error(`unable to normalize '${text}'`);
  return zone;
}

function parseUpstreams(c: Controller, tokens: readonly Token[]): Upstream[] {
  const upstreams: Upstream[] = [];
  for (const token of tokens) {
    try {
      upstreams.push(...parseUpstream(token.text));
    } catch (error) {
      if (error instanceof UpstreamError) throw errorAt(token, error.message);
      throw error;
    }
  }
  if (upstreams.length === 0) throw errorAt(tokens[0] as Token, 'no nameservers found');
  if (upstreams.length > MAX_UPSTREAMS) throw errorAt(tokens[0] as Token, `more than ${MAX_UPSTREAMS} TOs configured: ${upstreams.length}`);
  return upstreams;
}

/** Reads the `grpc` line of the block. Pure apart from reading the files it names; the setup table calls it directly. */
export function parseGrpc(c: Controller): GrpcOptions {
  let options: GrpcOptions | undefined;
  while (c.next()) {
    if (options !== undefined) throw errOnce(c);
    options = parseStanza(c);
  }
  // Setup runs only for a block that has the directive.
  return options as GrpcOptions;
}

function parseStanza(c: Controller): GrpcOptions {
  if (!c.nextArg()) throw c.argError();
  const from = parseFrom(c);
  const toTokens = c.remainingArgTokens();
  if (toTokens.length === 0) throw c.argError();
  const upstreams = parseUpstreams(c, toTokens);
  const except: string[] = [];
  let tls: TlsFiles | null = null;
  let tlsServerName: string | undefined;
  let policy: Policy = 'random';
  let fallthrough: string[] | null = null;
  while (c.nextBlock()) {
    switch (c.val()) {
      case 'except': {
        const names = c.remainingArgs();
        if (names.length === 0) throw c.argError();
        except.push(...zonesFromArgs(c, names, { ignoreInvalid: true }));
        break;
      }
      case 'tls':
        tls = parseTls(c);
        break;
      case 'tls_servername':
        if (!c.nextArg()) throw c.argError();
        tlsServerName = c.val();
        break;
      case 'policy': {
        if (!c.nextArg()) throw c.argError();
        const name = c.val();
        if (name !== 'random' && name !== 'round_robin' && name !== 'sequential') throw c.error(`unknown policy '${name}'`);
        policy = name;
        break;
      }
      case 'fallthrough':
        fallthrough = fallthroughZones(c, c.remainingArgs());
        break;
      default:
        throw c.error(`unknown property '${c.val()}'`);
    }
  }
  // A server name alone turns TLS on, with the system's CAs (CoreDNS's setup.go).
  if (tlsServerName !== undefined && tls === null) tls = {};
  return { from, upstreams, except, tls, tlsServerName, policy, fallthrough };
}

/** The process's grpc metrics: every block and reload counts in the same objects. */
const GrpcMetricsKey = defineShared<GrpcMetrics>('grpc/metrics');

/** The setup, with timing a test may shorten. */
export function setupWith(runtime: Partial<GrpcRuntime> = {}): (c: Controller) => void {
  return (c: Controller): void => {
    const options = parseGrpc(c);
    if (c.validating) return;
    const metrics = c.shared(GrpcMetricsKey, () => createGrpcMetrics(c.registry));
    const grpc = new Grpc(options, metrics, runtime);
    c.onStartup(() => grpc.start());
    c.onShutdown(() => grpc.stop());
    c.addHandler((next) => {
      grpc.next = next;
      return grpc;
    });
  };
}

/** The `grpc` directive's setup. */
export const setup: (c: Controller) => void = setupWith();
