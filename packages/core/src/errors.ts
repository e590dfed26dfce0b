/**
 * The errors that cross package boundaries, each with a stable `code`. A `Symbol.for` brand keeps
 * `instanceof` working when two copies of `@foghorn/core` are installed (a third-party plugin
 * that brought its own).
 */
import { Rcode } from './rcode.js';

const pluginErrorBrand = Symbol.for('foghorn.PluginError');
const configErrorBrand = Symbol.for('foghorn.ConfigError');

/**
 * An error a handler returns through the chain, CoreDNS's `(rcode, err)`: the rcode the server
 * answers with and the error the *errors* plugin logs. Throw it from `serveDNS`.
 */
export class PluginError extends Error {
  readonly code = 'FOGHORN_ERR_PLUGIN';
  /** The rcode to answer with when nothing was written yet (SERVFAIL unless said otherwise). */
  readonly rcode: number;
  readonly [pluginErrorBrand] = true;

  constructor(message: string, options?: { rcode?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PluginError';
    this.rcode = options?.rcode ?? Rcode.SERVFAIL;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && pluginErrorBrand in value;
  }
}

/** A Corefile that cannot be served: bad keys, duplicate zones, a plugin's setup refusing its options. */
export class ConfigError extends Error {
  readonly code = 'FOGHORN_ERR_CONFIG';
  readonly [configErrorBrand] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && configErrorBrand in value;
  }
}
