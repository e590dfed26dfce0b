/**
 * The plugin API: what a plugin package exports and what its `setup` receives. This file is the
 * contract third-party plugins are published against; keep it small and stable.
 */
import type { Dispenser } from '@foghorn/corefile';
import type { Capability, SharedKey } from './capability.js';
import type { Registry } from 'prom-client';
import { PluginError } from './errors.js';
import type { Logger } from './logger.js';
import { Rcode } from './rcode.js';
import type { Request } from './request.js';
import type { ResponseWriter } from './response.js';
import type { WorkerGroup } from './workers.js';

/** What `serveDNS` returns: an rcode, synchronously when the handler can. */
export type HandlerResult = number | Promise<number>;

/**
 * One link of the chain. `serveDNS` either writes a reply and returns its rcode (or 0), returns
 * SERVFAIL/REFUSED/FORMERR/NOTIMP without writing so the server writes it, or passes the query
 * to the next handler. To report an error as CoreDNS's `(rcode, err)`, throw a `PluginError`.
 */
export interface Handler {
  /** The directive name, used in errors and metrics. */
  readonly name: string;
  serveDNS(req: Request, w: ResponseWriter): HandlerResult;
}

/** Builds a handler around the rest of the chain; `next` is null for the last handler. */
export type HandlerFactory = (next: Handler | null) => Handler;

/** A lifecycle callback. May be async; hooks of one kind run one after another. */
export type Hook = () => void | Promise<void>;

/** The transports a server block key can name: `dns://` (UDP and TCP), `tls://` (DoT), `https://` (DoH). */
export type KeyTransport = 'dns' | 'tls' | 'https';

/** One key of a server block after normalisation (docs/compatibility.md, "Server block keys"). */
export interface ServerKey {
  /** `dns`, `tls` or `https`. */
  readonly transport: KeyTransport;
  /** Lower-case, fully qualified zone: `example.org.`, `.`, `0.0.10.in-addr.arpa.` */
  readonly zone: string;
  /** Port, from the key or the default (`-dns.port`, 53). */
  readonly port: number;
  /** Canonical form, `dns://example.org.:53`, `tls://.:853`. */
  readonly canonical: string;
}

/** Client certificate policy of a TLS listener: the *tls* plugin's `client_auth`, Go's `tls.ClientAuthType`. */
export type ClientAuth = 'nocert' | 'request' | 'require' | 'verify_if_given' | 'require_and_verify';

/** A server block's certificate material (the *tls* directive), read and checked by its setup. */
export interface TlsSettings {
  /** PEM certificate chain. */
  readonly cert: Buffer;
  /** PEM private key. */
  readonly key: Buffer;
  /** PEM CA bundle that verifies client certificates; the system CAs when absent. */
  readonly ca?: Buffer;
  readonly clientAuth: ClientAuth;
}

/**
 * Per-block server settings filled by setup-only directives, CoreDNS's `dnsserver.Config`: the
 * *tls* certificate, the *timeouts* of connection-oriented transports (TCP, DoT, DoH), *root*'s
 * directory and *debug*. When several blocks share a listener, the last block that sets a field
 * wins, as in CoreDNS.
 */
export interface ServerSettings {
  tls?: TlsSettings;
  /**
   * The directory relative file paths of this block resolve against (*root*, CoreDNS's
   * `config.Root`); the working directory when absent. *root* is first in the directive list,
   * so every plugin's setup sees it: resolve paths with `rootedPath(c, path)`.
   */
  root?: string;
  /**
   * *debug*: recovered panics are logged with their stack trace, and `[DEBUG]` lines are printed
   * (process-wide, as in CoreDNS, while any block of the configuration has it).
   */
  debug?: boolean;
  /** *errors*' `stacktrace`: recovered panics are logged with their stack trace. */
  stacktrace?: boolean;
  /** Time to read a query (for TCP and DoT, the first one on a connection); CoreDNS's default is 3 s. */
  readTimeoutMs?: number;
  /** Time a blocked reply may take to drain; CoreDNS's default is 5 s. */
  writeTimeoutMs?: number;
  /** Time an open connection may wait for its next query; CoreDNS's default is 10 s. */
  idleTimeoutMs?: number;
  /** Queries served on one TCP or DoT connection before it is closed; unlimited when absent or -1. */
  maxQueries?: number;
}

/**
 * What `setup` gets: the plugin's own tokens (the dispenser verbs: `next`, `nextArg`,
 * `remainingArgs`, `nextBlock`, `val`, `error`, `argError`) plus the ways to join the server.
 * Setup parses and registers; it must start nothing (open sockets in `onStartup`).
 *
 * @example
 * setup(c) {
 *   const options = parseHello(c);                 // tokens in, options out
 *   const source = new Source(options);
 *   c.onStartup(() => source.start());             // start only when serving
 *   c.onShutdown(() => source.stop());
 *   c.provide(ReadinessProbes, { name: c.directive, ready: () => source.synced });
 *   c.addHandler((next) => new Hello(options, source, next));
 * }
 */
export interface Controller extends Dispenser {
  /** The server block's keys, normalised; plugins derive default zones from them. */
  readonly keys: readonly ServerKey[];
  /** Zones of the server block (all keys, CIDRs expanded), lower-case and fully qualified. */
  readonly zones: readonly string[];
  /** The shared prom-client registry; create metrics through it with core's metric helpers. */
  readonly registry: Registry;
  /** Logger prefixed with `plugin/<directive>: `. */
  readonly log: Logger;
  /** True when setup runs only to validate (`foghorn -validate`): nothing will be started. */
  readonly validating: boolean;
  /** The Corefile being loaded: its path (or `stdin`) and contents. */
  readonly corefile: CorefileSource;
  /**
   * The worker processes serving the same ports under `foghorn -workers N`, for the plugins
   * whose answer covers the whole process group (/metrics, /health, /ready); undefined in a
   * single process.
   */
  readonly workers: WorkerGroup | undefined;
  /** This block's server settings (TLS, timeouts); setup-only directives (*tls*, *timeouts*) fill them. */
  readonly settings: ServerSettings;

  /** Adds this plugin's handler to the chain; the chain order is the directive list's. */
  addHandler(factory: HandlerFactory): void;
  /** Runs when the server starts, and on every reload for the new configuration. */
  onStartup(hook: Hook): void;
  /**
   * Runs once this configuration serves: its listeners are open, at start and after each
   * successful reload (caddy's instance-startup event, when CoreDNS lists its zones). The server
   * does not wait for it: such hooks run one after another in the background, and an error is
   * logged as `[ERROR] plugin/<directive>: …` (*on*'s `startup` commands).
   */
  onStartupComplete(hook: Hook): void;
  /** Runs when this configuration stops: after a successful reload, and at exit. */
  onShutdown(hook: Hook): void;
  /** Runs on this (old) configuration before a reload starts the new one. */
  onRestart(hook: Hook): void;
  /** Runs on this (old) configuration when a reload failed and it keeps serving. */
  onRestartFailed(hook: Hook): void;
  /** Runs once, when the process exits. */
  onFinalShutdown(hook: Hook): void;
  /**
   * Offers `value` under `token` to the plugins that use it, in the token's scope (this server
   * block, or the whole configuration). Call it in setup.
   */
  provide<T>(token: Capability<T>, value: NoInfer<T>): void;
  /**
   * Everything provided under `token` in its scope, in directive order (then block order, for
   * a configuration-wide token). The array is live and complete from `onStartup` on: read it in
   * a startup hook or per query, not only in setup, since plugins later in the directive list
   * provide after this setup ran.
   */
  use<T>(token: Capability<T>): readonly T[];
  /**
   * Process-wide state under `key`, created by `create` on first use and kept across reloads and
   * server blocks: one HTTP listener per address, one set of metric objects.
   */
  shared<T>(key: SharedKey<T>, create: () => T): T;
  /**
   * Asks the process to reload the Corefile (SIGUSR1's path); used by *reload*. Resolves with
   * undefined when the new Corefile serves, or with the error when it failed and the old one
   * keeps serving.
   */
  requestReload(): Promise<Error | undefined>;
  /**
   * CoreDNS's `log.Fatal` from a running plugin: logs `[FATAL] plugin/<directive>: message` and
   * ends the process with exit status 1, without shutdown hooks (the *loop* plugin's verdict). A
   * program embedding the server decides what "end" means through its `onFatal` option.
   */
  fatal(message: string): void;
}

/** A Corefile's text and where it came from. */
export interface CorefileSource {
  /** Path as given (`Corefile`, `/etc/coredns/Corefile`), `stdin`, or a name for text. */
  readonly path: string;
  readonly contents: string;
}

/** Where a third-party plugin asks to sit, relative to a standard directive. */
export type PluginOrder = { readonly after: string } | { readonly before: string };

/** The default export of a plugin package: one directive. */
export interface PluginDefinition {
  /** The directive name operators write in the Corefile. */
  readonly name: string;
  /** Plugin API version the plugin was written against (currently 1). */
  readonly apiVersion?: number;
  /** For third-party plugins: the place in the chain, relative to a standard directive. */
  readonly order?: PluginOrder;
  /**
   * The plugin answers every query class, not just IN: a listener serving a block that uses it
   * accepts other classes instead of refusing them (CoreDNS's server lets CH and friends through
   * for *chaos*, *forward* and *proxy*). Default false.
   */
  readonly anyClass?: boolean;
  /** Parses the plugin's tokens and registers its handler and hooks. Called once per server block. */
  setup(c: Controller): void | Promise<void>;
}

/** The plugin API version this core implements. */
export const API_VERSION = 1;

/**
 * Declares a plugin. Checks the definition at load time, so a broken plugin fails when the
 * distribution loads it, not on the first query.
 *
 * @example
 * export default definePlugin({
 *   name: 'hello',
 *   setup(c) {
 *     c.next();
 *     if (c.nextArg()) throw c.argError();
 *     c.addHandler((next) => new Hello(next));
 *   },
 * });
 */
export function definePlugin<T extends PluginDefinition>(definition: T): T {
  if (typeof definition !== 'object' || definition === null) throw new TypeError('plugin definition must be an object');
  if (typeof definition.name !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(definition.name)) {
    throw new TypeError(`plugin name must be a lower-case directive name, got '${String(definition.name)}'`);
  }
  if (typeof definition.setup !== 'function') throw new TypeError(`plugin '${definition.name}': setup must be a function`);
  if (definition.anyClass !== undefined && typeof definition.anyClass !== 'boolean') {
    throw new TypeError(`plugin '${definition.name}': anyClass must be a boolean`);
  }
  if (definition.apiVersion !== undefined && definition.apiVersion !== API_VERSION) {
    throw new TypeError(`plugin '${definition.name}' needs plugin API version ${definition.apiVersion}, this core implements ${API_VERSION}`);
  }
  return definition;
}

/**
 * Calls `next`, or fails the way CoreDNS's `NextOrFailure` does when a plugin is last in its
 * chain but needs a successor: SERVFAIL with `plugin/<name>: no next plugin found`.
 */
export function nextOrFailure(name: string, next: Handler | null, req: Request, w: ResponseWriter): HandlerResult {
  if (next === null) throw new PluginError(`plugin/${name}: no next plugin found`, { rcode: Rcode.SERVFAIL });
  return next.serveDNS(req, w);
}
