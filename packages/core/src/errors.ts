/**
 * Every error code Foghorn throws, in one file (fastify's `lib/errors.js` is the model): the
 * {@link ErrorCode} table says what each code means, and each code has one error class made by
 * {@link defineError}. Every class is branded the same way: a stable `code`, a `name`, and a
 * `Symbol.for` brand that keeps `instanceof` working when two copies of `@foghorn/core` are
 * installed (a third-party plugin that brought its own).
 *
 * The one class not made here is `CorefileError`, which lives in `@foghorn/corefile` (below
 * core) and carries {@link ErrorCode.CONFIG} with the same kind of brand.
 */
import { CONFIG_ERROR_CODE } from '@foghorn/corefile';
import { Rcode } from './rcode.js';

/**
 * What a log line or a reply prints of a thrown value: an error's message, anything else as
 * text. Thrown values need not be errors (`throw 'x'`, a rejected promise's reason).
 *
 * @example
 * c.log.error(`reading '${path}': ${errorMessage(error)}`);
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Every `code` a Foghorn error carries. */
export const ErrorCode = {
  /** A Corefile that cannot be served: syntax, bad keys, duplicate zones, a setup refusing its options. */
  CONFIG: CONFIG_ERROR_CODE,
  /** A handler's `(rcode, err)`: the server answers with the rcode, *errors* logs the message. */
  PLUGIN: 'FOGHORN_ERR_PLUGIN',
  /** A plugin package the CLI cannot use (not found, no definition, wrong API version). */
  PLUGIN_LOAD: 'FOGHORN_ERR_PLUGIN_LOAD',
  /** No usable Kubernetes connection: kubeconfig, context, endpoint or service account. */
  KUBE_CONNECTION: 'FOGHORN_ERR_KUBE_CONNECTION',
  /** An RFC 1035 zone file that cannot be read; the message starts with `file:line: `. */
  ZONEFILE: 'FOGHORN_ERR_ZONEFILE',
  /** A plugin's startup hook failed; the message is `plugin/NAME: FILE:LINE:COLUMN - reason`. */
  STARTUP: 'FOGHORN_ERR_STARTUP',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What every Foghorn error class has besides Error's own. */
export interface FoghornErrorClass<C extends ErrorCodeValue> {
  new (message: string, options?: ErrorOptions): Error & { readonly code: C };
  [Symbol.hasInstance](value: unknown): boolean;
}

/**
 * A branded error class for `code`: instances carry `code` and `name`, and `instanceof` checks
 * the `Symbol.for('foghorn.<name>')` brand instead of the prototype chain.
 */
export function defineError<C extends ErrorCodeValue>(code: C, name: string): FoghornErrorClass<C> {
  const brand = Symbol.for(`foghorn.${name}`);
  const errorClass = class extends Error {
    readonly code: C = code;

    constructor(message: string, options?: ErrorOptions) {
      super(message, options?.cause === undefined ? undefined : { cause: options.cause });
      this.name = name;
      Object.defineProperty(this, brand, { value: true });
    }

    static override [Symbol.hasInstance](value: unknown): boolean {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
    }
  };
  Object.defineProperty(errorClass, 'name', { value: name });
  return errorClass;
}

/** A Corefile that cannot be served: bad keys, duplicate zones, a plugin's setup refusing its options. */
export class ConfigError extends defineError(ErrorCode.CONFIG, 'ConfigError') {}

/**
 * An error a handler returns through the chain, CoreDNS's `(rcode, err)`: the rcode the server
 * answers with and the error the *errors* plugin logs. Throw it from `serveDNS`.
 */
export class PluginError extends defineError(ErrorCode.PLUGIN, 'PluginError') {
  /** The rcode to answer with when nothing was written yet (SERVFAIL unless said otherwise). */
  readonly rcode: number;

  constructor(message: string, options?: { rcode?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.rcode = options?.rcode ?? Rcode.SERVFAIL;
  }
}

/** A plugin package that cannot be used; the message says which package and why. */
export class PluginLoadError extends defineError(ErrorCode.PLUGIN_LOAD, 'PluginLoadError') {}

/** Why no Kubernetes connection could be built; setup reports it as a Corefile error. */
export class KubeConnectionError extends defineError(ErrorCode.KUBE_CONNECTION, 'KubeConnectionError') {}

/** A zone file that cannot be read (*file*): the message starts with `file:line: `. */
export class ZoneFileError extends defineError(ErrorCode.ZONEFILE, 'ZoneFileError') {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
  }
}

/**
 * A plugin's startup hook failed (a watch that cannot start, a kubeconfig that cannot be used, a
 * port another program holds): `plugin/NAME: FILE:LINE:COLUMN - reason`, naming where the
 * Corefile uses the directive, since that is what the operator edits. CoreDNS prints the bare
 * hook error (caddy's `Start` returns it as is); the position is Foghorn's addition.
 */
export class StartupError extends defineError(ErrorCode.STARTUP, 'StartupError') {
  constructor(
    readonly directive: string,
    at: { readonly file: string; readonly line: number; readonly column: number },
    cause: unknown,
  ) {
    let reason = errorMessage(cause);
    // Hooks that already say whose error it is (CoreDNS's plugin.Error) are not prefixed twice.
    const prefix = `plugin/${directive}: `;
    if (reason.startsWith(prefix)) reason = reason.slice(prefix.length);
    super(`${prefix}${at.file}:${at.line}:${at.column} - ${reason}`, { cause });
  }
}
