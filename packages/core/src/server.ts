/**
 * The running process: loads a Corefile into an {@link Instance}, opens its listeners, and
 * handles reloads and shutdown with CoreDNS's hook order (docs/compatibility.md, "Lifecycle"). Listeners outlive reloads:
 * a reload swaps each listener's route table in one assignment, so no query is dropped.
 */
import { errorMessage } from './errors.js';
import { Registry } from 'prom-client';
import type { SharedKey } from './capability.js';
import { buildInstance } from './instance.js';
import type { BuildContext, DirectiveEntry, Instance } from './instance.js';
import { createLogger, isDebugLogging, setDebugLogging } from './logger.js';
import { counter } from './metrics.js';
import type { Logger } from './logger.js';
import { DohListener } from './doh-listener.js';
import { descriptorLimit } from './limits.js';
import { Listener } from './listener.js';
import type { ListenerEvents } from './listener.js';
import type { CorefileSource, KeyTransport, ServerSettings } from './plugin.js';
import { TlsListener } from './tls-listener.js';
import { RouteTable } from './routes.js';
import { unknownSwitchesWarning } from './switches.js';
import { defaultTcpLimits } from './tcp-limits.js';
import type { TcpLimits } from './tcp-limits.js';
import type { WorkerGroup } from './workers.js';

/** A connection cap below this, forced by the open-file limit, is worth a warning at start-up. */
const LOW_CONNECTION_CAP = 1_000;

/** Options for {@link Server}. */
export interface ServerOptions {
  /** The directive list: which plugins exist and in which order they run. */
  readonly directives: readonly DirectiveEntry[];
  /** Reads the Corefile; called at start and on every reload. */
  readonly loadCorefile: () => CorefileSource | Promise<CorefileSource>;
  /** Port for keys without one (default 53). */
  readonly dnsPort?: number;
  /** Log sink; stdout by default. */
  readonly logger?: Logger;
  /** Metrics registry; a new one by default. */
  readonly registry?: Registry;
  /** Environment for `{$VAR}` substitution (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called for every recovered panic (the prometheus plugin counts them). */
  readonly events?: ListenerEvents;
  /**
   * Called after a plugin logged a fatal error (`Controller.fatal`). The default ends the process
   * with exit status 1 at once, as CoreDNS's `log.Fatal` does; tests and embedding programs pass
   * their own (then the server keeps running unless this stops it).
   */
  readonly onFatal?: (message: string) => void;
  /** Corefile text served when the Corefile has no server block; without it such a Corefile serves nothing. */
  readonly defaultCorefile?: string;
  /** TCP caps per listener; unset fields take the defaults of {@link defaultTcpLimits}. */
  readonly tcpLimits?: Partial<TcpLimits>;
  /**
   * Set in each worker of `foghorn -workers N`: plugins see it as `Controller.workers`, and a
   * plugin's reload request (*reload*) reloads every worker through it instead of this server alone.
   */
  readonly workers?: WorkerGroup;
}

/** One listening address of the running configuration. */
export interface ListenerInfo {
  /** `dns`, `tls` or `https`. */
  readonly transport: KeyTransport;
  readonly host: string;
  readonly port: number;
  readonly zones: string[];
  /** The metrics `server` label, `dns://:53`. */
  readonly server: string;
}

/**
 * A Foghorn DNS server. `start()` loads and serves the Corefile, `reload()` replaces it (the old
 * configuration keeps serving if the new one fails), `stop()` shuts down gracefully.
 */
export class Server {
  readonly registry: Registry;
  readonly logger: Logger;
  private instance: Instance | undefined;
  private readonly listeners = new Map<string, Listener>();
  private readonly shared = new Map<SharedKey<unknown>, unknown>();
  private reloading: Promise<boolean> = Promise.resolve(true);
  /** Why the last reload failed; undefined after a successful one. */
  lastReloadError: Error | undefined;
  private stopped = false;
  private readonly events: ListenerEvents;
  private readonly tcpLimits: TcpLimits;

  constructor(private readonly options: ServerOptions) {
    this.registry = options.registry ?? new Registry();
    this.logger = options.logger ?? createLogger();
    this.tcpLimits = { ...defaultTcpLimits(), ...options.tcpLimits };
    // CoreDNS counts recovered panics whether or not the prometheus plugin is used.
    const panics = counter(this.registry, { name: 'coredns_panics_total', help: 'A metrics that counts the number of panics.' });
    let httpsResponses: ReturnType<typeof counter> | undefined;
    this.events = {
      panic: (server, error) => {
        panics.inc();
        options.events?.panic(server, error);
      },
      httpsResponse: (server, status) => {
        // Registered on the first DoH reply, so configurations without DoH do not show it.
        httpsResponses ??= counter(this.registry, {
          name: 'coredns_dns_https_responses_total',
          help: 'Counter of DoH responses per server and http status code.',
          labelNames: ['server', 'status'],
        });
        httpsResponses.labels(server, String(status)).inc();
        options.events?.httpsResponse?.(server, status);
      },
    };
  }

  /** The listeners now open, with their actual ports. */
  get addresses(): ListenerInfo[] {
    return [...this.listeners.values()].map((l) => ({ transport: l.transport, host: l.host, port: l.port, zones: l.routing.routes.zones, server: l.server }));
  }

  /** The Corefile being served. */
  get corefile(): CorefileSource | undefined {
    return this.instance?.source;
  }

  /** Loads the Corefile, runs the startup hooks and opens the listeners. */
  async start(): Promise<void> {
    this.reportDescriptorLimit();
    const switches = unknownSwitchesWarning();
    if (switches !== undefined) this.logger.warning(switches);
    const source = await this.options.loadCorefile();
    const instance = await buildInstance(source, this.context(false));
    // CoreDNS sets log.D as it makes the servers, before their startup hooks run.
    setDebugLogging(instance.debug);
    const hookErrors = await instance.runHooks('startup');
    if (hookErrors.length > 0) {
      await instance.runHooks('shutdown');
      throw hookErrors[0]!;
    }
    try {
      await this.activate(instance);
    } catch (error) {
      await this.closeListeners();
      await instance.runHooks('shutdown');
      throw error;
    }
    this.instance = instance;
    this.startupComplete(instance);
  }

  /**
   * Runs the configuration's `onStartupComplete` hooks in the background (each logs its own
   * failure), from the next turn of the event loop: whoever awaited start() or reload() (the CLI
   * printing its zones and banner, as CoreDNS does before caddy's startup event) goes first.
   */
  private startupComplete(instance: Instance): void {
    if (instance.hooks.startupComplete.length > 0) setImmediate(() => void instance.runHooks('startupComplete'));
  }

  /**
   * Node raised the soft descriptor limit to the hard one already; when even that is low (under
   * 2,000: fewer than 1,000 connections) the connection cap follows it (limits.ts), which an
   * operator should hear about once.
   */
  private reportDescriptorLimit(): void {
    const limit = descriptorLimit();
    if (!limit || this.options.tcpLimits?.maxConnections !== undefined || this.tcpLimits.maxConnections >= LOW_CONNECTION_CAP) return;
    this.logger.warning(`open file limit is ${limit.soft} (hard ${limit.hard}): at most ${this.tcpLimits.maxConnections} TCP, DoT and DoH connections in all; raise it with ulimit -n or LimitNOFILE`);
  }

  /**
   * Reloads the Corefile (SIGUSR1 and the *reload* plugin). Resolves true when the new one serves,
   * false when it failed and the old one keeps serving; the error is logged either way.
   */
  reload(): Promise<boolean> {
    this.reloading = this.reloading.then(() => this.reloadOnce());
    return this.reloading;
  }

  private async reloadOnce(): Promise<boolean> {
    const old = this.instance;
    if (!old || this.stopped) return false;
    this.logger.info('Reloading');
    let next: Instance;
    try {
      // Parse and set up first: a broken Corefile never touches the running configuration.
      next = await buildInstance(await this.options.loadCorefile(), this.context(false));
    } catch (error) {
      this.logger.error(`Restart failed: ${errorMessage(error)}`);
      this.lastReloadError = asError(error);
      return false;
    }
    await old.runHooks('restart');
    const debug = isDebugLogging();
    setDebugLogging(next.debug);
    const startErrors = await next.runHooks('startup');
    try {
      if (startErrors.length > 0) throw startErrors[0]!;
      await this.activate(next);
    } catch (error) {
      await next.runHooks('shutdown');
      setDebugLogging(debug);
      await old.runHooks('restartFailed');
      this.logger.error(`Restart failed: ${errorMessage(error)}`);
      this.lastReloadError = asError(error);
      return false;
    }
    this.instance = next;
    this.lastReloadError = undefined;
    await old.runHooks('shutdown');
    this.logger.info('Reloading complete');
    this.startupComplete(next);
    return true;
  }

  /**
   * Stops: shutdown hooks (ready closes first, health waits its lameduck while DNS still
   * answers), final-shutdown hooks, then the listeners. Returns the hook errors.
   */
  async stop(options: { graceful?: boolean } = {}): Promise<Error[]> {
    if (this.stopped) return [];
    this.stopped = true;
    await this.reloading;
    const instance = this.instance;
    const errors: Error[] = [];
    if (instance) {
      errors.push(...(await instance.runHooks('shutdown')));
      errors.push(...(await instance.runHooks('finalShutdown')));
    }
    await this.closeListeners(options.graceful === false ? 0 : undefined);
    return errors;
  }

  /**
   * Opens missing listeners, swaps routes on kept ones, closes the ones no longer used. Listeners
   * are keyed by their configured address, so a port-0 listener keeps its port across reloads.
   */
  private async activate(instance: Instance): Promise<void> {
    const wanted = new Map(instance.addresses.map((plan) => [`${plan.transport}|${plan.host}|${plan.port}`, plan]));
    const toOpen = [...wanted].filter(([key]) => !this.listeners.has(key));
    // Without SO_REUSEPORT the old socket of a port (say on every address) and the new one
    // (on a bind address) cannot coexist: the old one is closed first, and the port is silent
    // for that moment. It is reopened if the new configuration fails.
    const conflicting = [...this.listeners].filter(
      ([key, listener]) => !wanted.has(key) && toOpen.some(([, plan]) => plan.port !== 0 && plan.port === listener.port),
    );
    for (const [key, listener] of conflicting) {
      this.listeners.delete(key);
      await listener.close(0);
    }
    const opened = new Map<string, Listener>();
    try {
      for (const [key, plan] of toOpen) {
        const listener = this.newListener(plan.transport, plan.host, plan.port, plan.settings);
        // Routes before the socket: a query that arrives while the rest binds (TCP after UDP, or
        // through the cluster primary under -workers) must meet the chain, not a REFUSED. loop's
        // probe, sent at startup, took such a REFUSED for a reply and stopped probing.
        listener.routing.acceptAnyClass = plan.acceptAnyClass;
        listener.routing.routes = new RouteTable(plan.routes);
        await listener.listen();
        opened.set(key, listener);
      }
    } catch (error) {
      await Promise.all([...opened.values()].map((listener) => listener.close(0)));
      for (const [key, old] of conflicting) {
        const again = this.newListener(old.transport, old.host, old.port, old.currentSettings);
        await again.listen().then(
          () => {
            again.routing.routes = old.routing.routes;
            again.routing.acceptAnyClass = old.routing.acceptAnyClass;
            this.listeners.set(key, again);
          },
          (reopenError: unknown) => this.logger.error(`reopening ${old.server}: ${errorMessage(reopenError)}`),
        );
      }
      throw error;
    }
    for (const [key, listener] of opened) this.listeners.set(key, listener);
    for (const [key, plan] of wanted) {
      const listener = this.listeners.get(key)!;
      listener.routing.acceptAnyClass = plan.acceptAnyClass;
      // A kept TLS listener takes the re-read certificate here: new connections get it.
      listener.configure(plan.settings);
      listener.routing.routes = new RouteTable(plan.routes);
    }
    const unused = [...this.listeners].filter(([key]) => !wanted.has(key));
    for (const [key] of unused) this.listeners.delete(key);
    await Promise.all(unused.map(([, listener]) => listener.close()));
  }

  private newListener(transport: KeyTransport, host: string, port: number, settings: ServerSettings): Listener {
    const options = { transport, host, port, logger: this.logger, events: this.events, tcpLimits: this.tcpLimits };
    const listener = transport === 'tls' ? new TlsListener(options) : transport === 'https' ? new DohListener(options) : new Listener(options);
    listener.configure(settings);
    return listener;
  }

  private async closeListeners(graceMs?: number): Promise<void> {
    const all = [...this.listeners.values()];
    this.listeners.clear();
    await Promise.all(all.map((listener) => listener.close(graceMs)));
  }

  private context(validating: boolean): BuildContext {
    return {
      directives: this.options.directives,
      dnsPort: this.options.dnsPort ?? 53,
      registry: this.registry,
      logger: this.logger,
      validating,
      shared: this.shared,
      requestReload: this.options.workers
        ? () => this.options.workers!.reload()
        : () => this.reload().then((ok) => (ok ? undefined : (this.lastReloadError ?? new Error('reload failed')))),
      fatal: (directive, message) => {
        this.logger.forPlugin(directive).fatal(message);
        (this.options.onFatal ?? exitFatally)(`plugin/${directive}: ${message}`);
      },
      ...(this.options.env ? { env: this.options.env } : {}),
      ...(this.options.defaultCorefile !== undefined ? { defaultCorefile: this.options.defaultCorefile } : {}),
      ...(this.options.workers ? { workers: this.options.workers } : {}),
    };
  }
}

/**
 * Parses the Corefile and runs every plugin's setup without starting anything (`-validate`).
 * Throws the first error, with file:line:column.
 */
export async function validateCorefile(
  source: CorefileSource,
  options: {
    directives: readonly DirectiveEntry[];
    dnsPort?: number;
    logger?: Logger;
    env?: Readonly<Record<string, string | undefined>>;
    defaultCorefile?: string;
  },
): Promise<void> {
  await buildInstance(source, {
    directives: options.directives,
    dnsPort: options.dnsPort ?? 53,
    registry: new Registry(),
    logger: options.logger ?? createLogger(),
    validating: true,
    shared: new Map(),
    requestReload: () => Promise.resolve(new Error('cannot reload while validating')),
    // Nothing runs while validating, so nothing can fail fatally; log it should a plugin try.
    fatal: (directive, message) => (options.logger ?? createLogger()).forPlugin(directive).fatal(message),
    ...(options.env ? { env: options.env } : {}),
    ...(options.defaultCorefile !== undefined ? { defaultCorefile: options.defaultCorefile } : {}),
  });
}

/** CoreDNS's `log.Fatal`: exit status 1, no shutdown hooks, no lameduck. */
function exitFatally(): never {
  process.exit(1);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

