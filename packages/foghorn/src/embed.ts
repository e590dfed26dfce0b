/**
 * Embedding Foghorn in a program, the way Lighthouse's `main.go` embeds CoreDNS with its own
 * `Directives` array: pick the directives (and their order), give a Corefile, start.
 */
import { readFileSync } from 'node:fs';
import type { CorefileSource, Logger, PluginDefinition } from '@foghorn/core';
import { Server } from '@foghorn/core/server';
import type { DirectiveEntry, TcpLimits } from '@foghorn/core/server';
import type { Registry } from 'prom-client';
import { standardDirectives } from './directives.js';

/** Options for {@link createServer}. */
export interface EmbeddedServerOptions {
  /** Corefile text, or `{ file }` to read it from disk (again on every reload). */
  readonly corefile: string | { readonly file: string };
  /**
   * The chain, first to last: names of standard directives and/or plugin definitions of your
   * own. Default: the standard directive list.
   */
  readonly directives?: readonly (string | PluginDefinition)[];
  /** Port for server block keys without one (default 53). */
  readonly dnsPort?: number;
  readonly logger?: Logger;
  readonly registry?: Registry;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** TCP connection and buffer caps per listener; unset fields keep core's `defaultTcpLimits()`. */
  readonly tcpLimits?: Partial<TcpLimits>;
}

/** Turns names and definitions into a directive list, in the order given. */
export function chooseDirectives(choice: readonly (string | PluginDefinition)[]): DirectiveEntry[] {
  const standard = standardDirectives();
  return choice.map((item) => {
    if (typeof item !== 'string') return { name: item.name, load: () => item };
    const entry = standard.find((candidate) => candidate.name === item);
    if (!entry) throw new Error(`unknown standard directive '${item}'; known: ${standard.map((e) => e.name).join(', ')}`);
    return entry;
  });
}

/**
 * Builds a server; call `start()` to serve, `reload()` to re-read the Corefile, `stop()` to end.
 *
 * @example
 * const server = createServer({
 *   directives: ['ready', 'health', 'prometheus', 'errors', 'lighthouse'],
 *   corefile: { file: '/etc/coredns/Corefile' },
 * });
 * await server.start();
 */
export function createServer(options: EmbeddedServerOptions): Server {
  const directives = options.directives ? chooseDirectives(options.directives) : standardDirectives();
  const corefile = options.corefile;
  const loadCorefile = (): CorefileSource =>
    typeof corefile === 'string' ? { path: 'Corefile', contents: corefile } : { path: corefile.file, contents: readFileSync(corefile.file, 'utf8') };
  return new Server({
    directives,
    loadCorefile,
    ...(options.dnsPort !== undefined ? { dnsPort: options.dnsPort } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.tcpLimits ? { tcpLimits: options.tcpLimits } : {}),
  });
}
