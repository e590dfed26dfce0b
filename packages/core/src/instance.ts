/**
 * Turning parsed server blocks into a runnable configuration (docs/compatibility.md, "Server block keys", "Duplicates and listeners", "Setup order"):
 * normalise keys, run each plugin's setup in *directive-list* order (never Corefile order), link
 * each block's chain once, and group zones by listen address.
 */
import { Dispenser, parseCorefile } from '@foghorn/corefile';
import type { ServerBlock, Token } from '@foghorn/corefile';
import type { Registry } from 'prom-client';
import { ConfigError, errorMessage, StartupError } from './errors.js';
import type { Logger } from './logger.js';
import { KeyError, parseServerKey, serverLabel } from './keys.js';
import { CapabilityStore, coreProvided, HandlerNames, ListenAddresses, MetadataCollectors, Servers, Views } from './capability.js';
import { PluginSpans, serveInSpan } from './observe.js';
import type { Capability, SharedKey } from './capability.js';
import type { Controller, CorefileSource, Handler, HandlerFactory, HandlerResult, Hook, KeyTransport, PluginDefinition, ServerKey, ServerSettings } from './plugin.js';
import type { Request } from './request.js';
import type { ResponseWriter } from './response.js';
import type { Route } from './routes.js';
import { isDisabled } from './switches.js';
import type { WorkerGroup } from './workers.js';

/** One entry of the distribution's directive list (our plugin.cfg). */
export interface DirectiveEntry {
  /** The directive name. */
  readonly name: string;
  /** The package implementing it, for `-plugins` and error messages. */
  readonly packageName?: string;
  /** The package version, for `-plugins`. */
  readonly version?: string;
  /** Loads the plugin; called only when a Corefile uses the directive. */
  load(): PluginDefinition | Promise<PluginDefinition>;
}

/** Process-wide services a configuration is built against; they outlive reloads. */
export interface BuildContext {
  readonly directives: readonly DirectiveEntry[];
  /** Port for keys without one (`-dns.port`). */
  readonly dnsPort: number;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly validating: boolean;
  /** Process-wide state by key (`Controller.shared`): the server keeps one map across reloads. */
  readonly shared: Map<SharedKey<unknown>, unknown>;
  requestReload(): Promise<Error | undefined>;
  /** A plugin's fatal error: log it and end the process (see `Controller.fatal`). */
  fatal(directive: string, message: string): void;
  /** Corefile text served when the Corefile has no server block (the CLI passes its built-in one). */
  readonly defaultCorefile?: string;
  /** The other worker processes under `foghorn -workers N`; undefined in a single process. */
  readonly workers?: WorkerGroup;
  /**
   * Called as each plugin of a chain is entered, with the query and the directive: a tracing
   * hook (`foghorn -query` prints the path with it). Chains built without one pay nothing for it.
   */
  readonly onEnter?: (req: Request, plugin: string) => void;
}

export type HookKind = 'startup' | 'startupComplete' | 'shutdown' | 'restart' | 'restartFailed' | 'finalShutdown';

/** The zones one listen address serves. */
export interface AddressPlan {
  /** `dns` (UDP and TCP), `tls` (DoT) or `https` (DoH). */
  readonly transport: KeyTransport;
  /** '' for every address. */
  readonly host: string;
  readonly port: number;
  /** The blocks' settings merged field by field, the last block that sets one winning (CoreDNS's `NewServer`). */
  readonly settings: ServerSettings;
  readonly routes: Route[];
  /** A block here uses an `anyClass` plugin, so classes other than IN are accepted. */
  readonly acceptAnyClass: boolean;
}

/** A fully set-up configuration, not yet started. */
export class Instance {
  readonly hooks: Record<HookKind, Hook[]> = { startup: [], startupComplete: [], shutdown: [], restart: [], restartFailed: [], finalShutdown: [] };
  readonly addresses: AddressPlan[] = [];
  /** A block has *debug* (`ServerSettings.debug`): the server prints `[DEBUG]` lines while this configuration serves. */
  debug = false;

  constructor(readonly source: CorefileSource) {
    configurationStores.set(this, new CapabilityStore());
  }

  /** What this configuration's plugins provided under a configuration-wide `token` (`Controller.use`). */
  use<T>(token: Capability<T>): readonly T[] {
    if (token.scope !== 'configuration') throw new TypeError(`capability '${token.name}' is found per server block, not per configuration`);
    return configurationStores.get(this)!.list(token);
  }

  /** Runs every hook of a kind in registration order; returns the errors instead of stopping. */
  async runHooks(kind: HookKind): Promise<Error[]> {
    const errors: Error[] = [];
    for (const hook of this.hooks[kind]) {
      try {
        await hook();
      } catch (error) {
        errors.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return errors;
  }
}

/** What each configuration's plugins provided under configuration-wide capabilities (readiness probes, ...). */
const configurationStores = new WeakMap<Instance, CapabilityStore>();

interface BlockState {
  readonly block: ServerBlock;
  readonly index: number;
  readonly keys: ServerKey[];
  readonly keyTokens: Token[];
  readonly factories: { name: string; factory: HandlerFactory }[];
  /** What the block's plugins (and core: handler names, servers) provided under block capabilities. */
  readonly capabilities: CapabilityStore;
  readonly settings: ServerSettings;
  /** A plugin of this block answers every class ({@link PluginDefinition.anyClass}). */
  anyClass: boolean;
}

function positioned(token: Token, message: string): ConfigError {
  return new ConfigError(`${token.file}:${token.line}:${token.column} - Error during parsing: ${message}`);
}

/** Parses and sets up a Corefile. Throws `ConfigError`/`CorefileError` with file:line:column. */
export async function buildInstance(source: CorefileSource, context: BuildContext): Promise<Instance> {
  const byName = new Map(context.directives.map((entry) => [entry.name, entry]));
  let blocks = parseCorefile(source.contents, {
    file: source.path,
    isDirective: (name) => byName.has(name),
    directiveNames: byName.keys(),
    warn: (message) => context.logger.warning(message),
    ...(context.env ? { env: context.env } : {}),
  });
  if (blocks.length === 0 && context.defaultCorefile !== undefined) {
    context.logger.warning(`no server block in ${source.path}: serving the built-in default Corefile`);
    blocks = parseCorefile(context.defaultCorefile, { file: 'default Corefile' });
  }
  const instance = new Instance(source);
  const states = blocks.map((block, index) => blockState(block, index, context.dnsPort));

  // Outer loop: directives in list order; inner loop: blocks in file order (docs/compatibility.md, "Setup order").
  for (const entry of context.directives) {
    const using = states.filter((state) => state.block.directives.some((d) => d.name === entry.name));
    if (using.length === 0) continue;
    let plugin: PluginDefinition;
    try {
      plugin = await entry.load();
    } catch (error) {
      // Name the first place the Corefile uses the directive: that is what the operator edits.
      const first = using[0]!.block.directives.find((d) => d.name === entry.name)!.tokens[0]!;
      throw positioned(first, `plugin/${entry.name}: ${errorMessage(error)}`);
    }
    for (const state of using) {
      if (plugin.anyClass === true) state.anyClass = true;
      const tokens = state.block.directives.filter((d) => d.name === entry.name).flatMap((d) => d.tokens);
      const controller = new SetupController(tokens, entry.name, state, instance, context);
      try {
        await plugin.setup(controller);
      } catch (error) {
        throw new ConfigError(`plugin/${entry.name}: ${errorMessage(error)}`, { cause: error });
      }
    }
  }

  const chains = states.map((state) => {
    // Plugins after the first that asked for per-plugin spans (trace) get span-aware links.
    const spanners = state.capabilities.list(PluginSpans);
    const spansAfter = spanners.length === 0 ? Infinity : state.factories.findIndex((f) => spanners.includes(f.name));
    let chain: Handler | null = null;
    for (let i = state.factories.length - 1; i >= 0; i--) {
      const { name, factory } = state.factories[i]!;
      chain = link(name, factory(chain), context.onEnter, spansAfter >= 0 && i > spansAfter);
    }
    return chain;
  });
  planAddresses(states, chains, instance);
  instance.debug = states.some((state) => state.settings.debug === true);
  return instance;
}

function blockState(block: ServerBlock, index: number, dnsPort: number): BlockState {
  const keys: ServerKey[] = [];
  const keyTokens: Token[] = [];
  for (const token of block.keys) {
    let parsed: ServerKey[];
    try {
      parsed = parseServerKey(token.text, dnsPort);
    } catch (error) {
      if (error instanceof KeyError) throw positioned(token, error.message);
      throw error;
    }
    for (const key of parsed) {
      keys.push(key);
      keyTokens.push(token);
    }
  }
  return { block, index, keys, keyTokens, factories: [], capabilities: new CapabilityStore(), settings: {}, anyClass: false };
}

/**
 * Uniqueness (docs/compatibility.md, "Duplicates and listeners") and listener grouping. Each (zone, address, port) may appear once
 * in blocks without a view; blocks with one may share it with each other and with one without
 * (CoreDNS's `validateZonesAndListeningAddresses`), and are chosen among in Corefile order.
 * Unlike CoreDNS, a port served both on every address and on a specific one is refused: without
 * SO_REUSEPORT the two sockets cannot coexist, and with it which one answers is unpredictable
 * (CoreDNS issues #4270, #7786).
 */
function planAddresses(states: BlockState[], chains: (Handler | null)[], instance: Instance): void {
  const seen = new Map<string, Token>();
  const plans = new Map<string, AddressPlan>();
  const wildcardPorts = new Map<number, Token>();
  const boundPorts = new Map<number, Token>();
  for (const state of states) {
    const listenAddresses = state.capabilities.list(ListenAddresses);
    const hosts = listenAddresses.length > 0 ? [...new Set(listenAddresses)] : [''];
    const servers = state.capabilities.list(Servers);
    const views = state.capabilities.list(Views);
    // CoreDNS's register.go: one Viewer per block (the view plugin itself allows one occurrence).
    if (views.length > 1) throw positioned(state.keyTokens[0]!, 'multiple views defined in server block');
    const view = views[0];
    // CoreDNS bookmarks the first MetadataCollector of the chain.
    const metadata = state.capabilities.list(MetadataCollectors)[0];
    state.keys.forEach((key, i) => {
      const token = state.keyTokens[i]!;
      // CoreDNS serves such a block in clear text on the TLS port; an operator who wrote tls:// wants encryption.
      if (key.transport !== 'dns' && state.settings.tls === undefined) {
        throw positioned(token, `cannot serve ${key.canonical} - a ${key.transport}:// server block needs the tls directive (tls CERT KEY [CA])`);
      }
      for (const host of hosts) {
        const where = host === '' ? '' : ` on ${host}`;
        const id = `${key.transport}|${key.zone}|${host}|${key.port}`;
        if (view === undefined) {
          const first = seen.get(id);
          if (first) {
            throw positioned(token, `cannot serve ${key.canonical}${where} - it is already defined at ${first.file}:${first.line}:${first.column}`);
          }
          seen.set(id, token);
        }
        const [mine, other] = host === '' ? [wildcardPorts, boundPorts] : [boundPorts, wildcardPorts];
        const clash = key.port === 0 ? undefined : other.get(key.port);
        if (clash) {
          throw positioned(
            token,
            `cannot serve ${key.canonical}${where} - port ${key.port} is also served on ${host === '' ? 'a specific address' : 'every address'} at ${clash.file}:${clash.line}:${clash.column}; use bind in every block on this port, or in none`,
          );
        }
        mine.set(key.port, token);
        const planKey = `${key.transport}|${host}|${key.port}`;
        let plan = plans.get(planKey);
        if (!plan) {
          plan = { transport: key.transport, host, port: key.port, settings: {}, routes: [], acceptAnyClass: false };
          plans.set(planKey, plan);
          instance.addresses.push(plan);
        }
        Object.assign(plan.settings, definedFields(state.settings));
        plan.routes.push({ zone: key.zone, chain: chains[state.index] ?? null, key: token, block: state.block, ...(view && { view }), ...(metadata && { metadata }) });
        const server = serverLabel(host, key.port, key.transport);
        if (!servers.includes(server)) servers.push(server);
        if (state.anyClass) (plan as { acceptAnyClass: boolean }).acceptAnyClass = true;
      }
    });
  }
}

/** The fields of `settings` that a directive set, so merging never overwrites with undefined. */
function definedFields(settings: ServerSettings): ServerSettings {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as ServerSettings;
}

/**
 * One link of a chain: notes on the request which plugin runs, so the writer can record which
 * one wrote the reply (the `plugin` label of `coredns_dns_responses_total`, as CoreDNS's
 * per-plugin writer does), then calls it. One property store per plugin per query.
 *
 * Each link gets code of its own, so its call to the plugin has one target. Shared code, one
 * class for every link, calls every plugin of every block from one place: past four classes that
 * call is megamorphic, a stub-cache lookup and an indirect call V8 never inlines. CPU profiles
 * under dnsperf, the links' own time per query as one class and as generated code: the
 * Corefile.example chain (prometheus, errors, log, whoami) 120–220 against 83–104 ns, the stock
 * kubeadm Corefile on cache hits (prometheus, errors, loadbalance, cache) 291 against 220 ns.
 * The source is this function's and a counter's: the same source would be the same code to V8,
 * whose cache would hand every link one function again. Where code generation is turned off
 * (`node --disallow-code-generation-from-strings`, or `FOGHORN_DISABLE=codegen` to measure what
 * it is worth) the links share {@link NamedLink}'s code.
 *
 * `onEnter` (a tracing hook, {@link BuildContext.onEnter}) is called between the two: only the
 * chains of a traced configuration carry it.
 *
 * `spans`: the link opens a child span for a query that carries one (`Request.span`), in the
 * blocks whose *trace* asked for them (`PluginSpans`); other queries pay one property read, and
 * other blocks' links are the plain ones.
 */
function link(name: string, handler: Handler, onEnter?: (req: Request, plugin: string) => void, spans = false): Handler {
  const target = onEnter === undefined ? handler : traced(name, handler, onEnter);
  if (!isDisabled('codegen')) {
    try {
      const body = spans
        ? `  req.handler = name;\n  if (req.span === undefined) return handler.serveDNS(req, w);\n  return serveInSpan(req, w, name, handler);\n`
        : `  req.handler = name;\n  return handler.serveDNS(req, w);\n`;
      const serveDNS = new Function('name', 'handler', 'serveInSpan', `return function link${links++}(req, w) {\n${body}};`);
      return { name, serveDNS: serveDNS(name, target, serveInSpan) as Handler['serveDNS'] };
    } catch {
      // Code generation is off for this process: the shared links below.
    }
  }
  return spans ? new SpanLink(name, target) : new NamedLink(name, target);
}
let links = 0;

/** `handler` behind a call to `onEnter`: the hook of a traced chain. */
function traced(name: string, handler: Handler, onEnter: (req: Request, plugin: string) => void): Handler {
  return {
    name,
    serveDNS(req, w) {
      onEnter(req, name);
      return handler.serveDNS(req, w);
    },
  };
}

/** A chain link in shared code: {@link link}'s fallback. */
class NamedLink implements Handler {
  constructor(
    readonly name: string,
    private readonly handler: Handler,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.handler = this.name;
    return this.handler.serveDNS(req, w);
  }
}

/** A chain link in shared code that opens a span per plugin for traced queries: {@link link}'s fallback. */
class SpanLink implements Handler {
  constructor(
    readonly name: string,
    private readonly handler: Handler,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.handler = this.name;
    if (req.span === undefined) return this.handler.serveDNS(req, w);
    return serveInSpan(req, w, this.name, this.handler);
  }
}

/** The controller handed to `setup`: the plugin's dispenser plus the block it configures. */
class SetupController extends Dispenser implements Controller {
  readonly keys: readonly ServerKey[];
  readonly zones: readonly string[];
  readonly registry: Registry;
  readonly log: Logger;
  readonly validating: boolean;
  readonly corefile: CorefileSource;
  readonly settings: ServerSettings;
  readonly workers: WorkerGroup | undefined;
  /** The directive's first token in the block: where a failing startup hook points. */
  private readonly first: Token;

  constructor(
    tokens: readonly Token[],
    directive: string,
    private readonly state: BlockState,
    private readonly instance: Instance,
    private readonly context: BuildContext,
  ) {
    super(tokens, directive);
    this.keys = state.keys;
    this.zones = [...new Set(state.keys.map((key) => key.zone))];
    this.registry = context.registry;
    this.log = context.logger.forPlugin(directive);
    this.validating = context.validating;
    this.corefile = instance.source;
    this.settings = state.settings;
    this.workers = context.workers;
    this.first = tokens[0]!;
  }

  addHandler(factory: HandlerFactory): void {
    this.state.factories.push({ name: this.directive, factory });
    this.state.capabilities.list(HandlerNames).push(this.directive);
  }
  onStartup(hook: Hook): void {
    const { directive, first } = this;
    this.instance.hooks.startup.push(async () => {
      try {
        await hook();
      } catch (error) {
        throw new StartupError(directive, first, error);
      }
    });
  }
  onStartupComplete(hook: Hook): void {
    // Nobody awaits these (the server already serves): the plugin's logger reports a failure.
    const log = this.log;
    this.instance.hooks.startupComplete.push(async () => {
      try {
        await hook();
      } catch (error) {
        log.error(errorMessage(error));
      }
    });
  }
  onShutdown(hook: Hook): void {
    this.instance.hooks.shutdown.push(hook);
  }
  onRestart(hook: Hook): void {
    this.instance.hooks.restart.push(hook);
  }
  onRestartFailed(hook: Hook): void {
    this.instance.hooks.restartFailed.push(hook);
  }
  onFinalShutdown(hook: Hook): void {
    this.instance.hooks.finalShutdown.push(hook);
  }
  provide<T>(token: Capability<T>, value: T): void {
    if (coreProvided.has(token)) throw new TypeError(`capability '${token.name}' is provided by core, not by plugins`);
    this.store(token).list(token).push(value);
  }
  use<T>(token: Capability<T>): readonly T[] {
    return this.store(token).list(token);
  }
  private store(token: Capability<unknown>): CapabilityStore {
    return token.scope === 'configuration' ? configurationStores.get(this.instance)! : this.state.capabilities;
  }
  shared<T>(key: SharedKey<T>, create: () => T): T {
    const shared = this.context.shared;
    if (!shared.has(key)) shared.set(key, create());
    return shared.get(key) as T;
  }
  requestReload(): Promise<Error | undefined> {
    return this.context.requestReload();
  }
  fatal(message: string): void {
    this.context.fatal(this.directive, message);
  }
}
