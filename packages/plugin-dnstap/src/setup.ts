/**
 * dnstap: parsing `dnstap [listen] SOCKET [full] [WRITEBUFFER] [QUEUE] { identity; version;
 * extra; skipverify; tls }` (CoreDNS v1.14's plugin/dnstap/setup.go, with its error texts)
 * and wiring one sink per line: offered to the block's other plugins (*forward*) through core's
 * `DnstapSinks`, connected in onStartup, closed on reload and at exit.
 */
import { hostname } from 'node:os';
import { DnstapSinks, errorAt, errorMessage } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { APP_NAME, appVersion, splitHostPort } from '@foghorn/core/wire';
import { Dnstap } from './handler.js';
import { createDnstapMetrics } from './metrics.js';
import { Dialer, Listener } from './output.js';
import type { Endpoint, TapOutput } from './output.js';
import { TapSink } from './sink.js';

/** Messages a queue holds per `QUEUE` unit (CoreDNS's `queueSize`). */
export const QUEUE_UNIT = 10_000;
/** Bytes of write buffer per `WRITEBUFFER` unit: a MiB (CoreDNS's `tcpWriteBufSize`). */
export const WRITE_BUFFER_UNIT = 1024 * 1024;
/** CoreDNS's upper bounds for the two multiples. */
export const MAX_WRITE_BUFFER = 1024;
export const MAX_QUEUE = 4096;

/** One `dnstap` line. */
export interface DnstapOptions {
  /** `listen`: collectors connect to Foghorn instead. */
  readonly listen: boolean;
  readonly endpoint: Endpoint;
  /** `full`: include the wire messages. */
  readonly full: boolean;
  /** WRITEBUFFER, in MiB (default 1). */
  readonly writeBufferMiB: number;
  /** QUEUE, in units of 10,000 messages (default 1). */
  readonly queueMultiple: number;
  /** Defaults to the host name. */
  readonly identity: string;
  /** Defaults to `Foghorn-VERSION`. */
  readonly version: string;
  /** The `extra` field, '' for none. */
  readonly extra: string;
  readonly skipVerify: boolean;
  /** `tls CERT KEY [CA]` of a TLS listener. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca?: string | undefined } | undefined;
}

/** A SOCKET argument: `tcp://HOST:PORT`, `tls://HOST:PORT`, `unix://PATH` or a path. */
function parseEndpoint(token: Token): Endpoint {
  const text = token.text;
  for (const proto of ['tcp', 'tls'] as const) {
    if (!text.startsWith(`${proto}://`)) continue;
    const address = text.slice(proto.length + 3).replace(/\/.*$/, '');
    try {
      splitHostPort(address);
    } catch (error) {
      throw errorAt(token, errorMessage(error));
    }
    return { proto, address };
  }
  return { proto: 'unix', address: text.startsWith('unix://') ? text.slice('unix://'.length) : text };
}

/** A multiple argument, checked as CoreDNS checks it; an error points at it. */
function multiple(token: Token, name: string, max: number, unit: string): number {
  const text = token.text;
  const value = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isNaN(value)) throw errorAt(token, `dnstap: invalid ${name} "${text}": strconv.Atoi: parsing "${text}": invalid syntax`);
  if (value < 1 || value > max) throw errorAt(token, `dnstap: ${name} must be between 1 and ${max} (${unit}): ${value}`);
  return value;
}

/** Every `dnstap` line of the block; the directive may repeat (one tap per line). Pure. */
export function parseDnstap(c: Controller): DnstapOptions[] {
  const taps: DnstapOptions[] = [];
  while (c.next()) {
    let tokens = c.remainingArgTokens();
    if (tokens.length === 0) throw c.argError();
    let args = tokens.map((token) => token.text);
    const listen = args[0] === 'listen';
    if (listen) {
      if (args.length < 2) throw c.error('dnstap listen requires an endpoint argument');
      args = args.slice(1);
      tokens = tokens.slice(1);
    }
    const writeBufferMiB = tokens[2] === undefined ? 1 : multiple(tokens[2], 'MultipleTcpWriteBuf', MAX_WRITE_BUFFER, 'MiB units');
    const queueMultiple = tokens[3] === undefined ? 1 : multiple(tokens[3], 'MultipleQueue', MAX_QUEUE, 'x10k messages');
    const endpoint = parseEndpoint(tokens[0]!);
    // As in CoreDNS, a second argument other than `full` is ignored.
    const full = args[1] === 'full';
    let identity = hostname();
    let version = `${APP_NAME}-${appVersion()}`;
    let extra = '';
    let skipVerify = false;
    let tls: DnstapOptions['tls'];
    while (c.nextBlock()) {
      switch (c.val()) {
        case 'skipverify':
          skipVerify = true;
          break;
        case 'tls': {
          if (!listen) throw c.error('tls directive only valid for listeners');
          const files = c.remainingArgs();
          if (files.length < 2) throw c.error('tls requires cert and key file paths');
          tls = { cert: files[0]!, key: files[1]!, ca: files[2] };
          break;
        }
        case 'identity':
        case 'version':
        case 'extra': {
          const property = c.val();
          if (!c.nextArg()) throw c.argError();
          if (property === 'identity') identity = c.val();
          else if (property === 'version') version = c.val();
          else extra = c.val();
          break;
        }
        default:
          throw c.error(`unknown property '${c.val()}'`);
      }
    }
    taps.push({ listen, endpoint, full, writeBufferMiB, queueMultiple, identity, version, extra, skipVerify, tls });
  }
  return taps;
}

/** Parses, then offers one sink per line and adds the handler; nothing connects before onStartup. */
export function setup(c: Controller): void {
  const taps = parseDnstap(c);
  const metrics = createDnstapMetrics(c.registry);
  const sinks = taps.map((tap) => {
    const label = `${tap.endpoint.proto}://${tap.endpoint.address}`;
    const dropped = metrics.dropped.labels(label);
    const countDropped = (count: number): void => dropped.inc(count);
    const writeBufferBytes = tap.writeBufferMiB * WRITE_BUFFER_UNIT;
    const output: TapOutput = tap.listen
      ? new Listener({ endpoint: tap.endpoint, writeBufferBytes, tls: tap.tls, skipVerify: tap.skipVerify, log: c.log, onDropped: countDropped })
      : new Dialer({ endpoint: tap.endpoint, maxQueued: tap.queueMultiple * QUEUE_UNIT, writeBufferBytes, skipVerify: tap.skipVerify, log: c.log });
    const sink = new TapSink({ ...tap, endpoint: label }, output, countDropped, c.log);
    c.provide(DnstapSinks, sink);
    c.onStartup(() => sink.start());
    c.onRestart(() => sink.close());
    c.onRestartFailed(() => sink.start());
    c.onShutdown(() => sink.close());
    return sink;
  });
  c.addHandler((next) => new Dnstap(sinks, next));
}
