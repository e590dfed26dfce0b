/**
 * reload: parsing `reload [INTERVAL] [JITTER]` and attaching the process-wide watcher to the
 * configuration's lifecycle. It adds no handler.
 */
import { defineShared, durationArg, formatDuration } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { createReloadMetrics } from './metrics.js';
import { CorefileWatcher } from './watcher.js';
import type { WatchedConfig } from './watcher.js';

/** The `reload` line after parsing; durations in ms. */
export interface ReloadOptions {
  /** How often to check the Corefile. */
  readonly intervalMs: number;
  /** The period varies by up to ±half of this; already reduced to at most half the interval. */
  readonly jitterMs: number;
}

export const defaultIntervalMs = 30_000;
export const defaultJitterMs = 15_000;

/** The lower bounds CoreDNS enforces; tests of the watcher lower them through {@link createReloadPlugin}. */
export interface ReloadLimits {
  /** Smallest INTERVAL accepted (CoreDNS: 2s). */
  readonly minIntervalMs: number;
  /** Smallest non-zero JITTER accepted (CoreDNS: 1s). */
  readonly minJitterMs: number;
}

export const coreDnsLimits: ReloadLimits = { minIntervalMs: 2_000, minJitterMs: 1_000 };

/**
 * Parses the block's first `reload` line, as CoreDNS does (later ones are not read). Pure:
 * tokens in, options out, or a positioned error.
 */
export function parseReload(c: Controller, limits: ReloadLimits = coreDnsLimits): ReloadOptions {
  c.next();
  const args = c.remainingArgTokens();
  if (args.length > 2) throw c.argError();
  const duration = (index: number, fallback: number): number => {
    const token = args[index];
    return token ? durationArg(c, token.text) : fallback;
  };
  const intervalMs = duration(0, defaultIntervalMs);
  if (intervalMs < limits.minIntervalMs) {
    throw c.error(`interval value must be greater or equal to ${formatDuration(limits.minIntervalMs)}`);
  }
  let jitterMs = duration(1, defaultJitterMs);
  if (jitterMs !== 0 && jitterMs < limits.minJitterMs) {
    throw c.error(`jitter value must be 0 or greater or equal to ${formatDuration(limits.minJitterMs)}`);
  }
  if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  if (jitterMs > intervalMs / 2) jitterMs = intervalMs / 2;
  return { intervalMs, jitterMs };
}

/**
 * The period actually used: INTERVAL plus a uniform draw from [-JITTER/2, +JITTER/2), once per
 * setup. (CoreDNS's README says ±JITTER; its code uses half.)
 */
export function reloadPeriodMs(options: ReloadOptions, random: () => number = Math.random): number {
  if (options.jitterMs <= 0) return options.intervalMs;
  return options.intervalMs + Math.floor(random() * options.jitterMs) - options.jitterMs / 2;
}

/** Options of {@link setupWith} (and the package's `createReloadPlugin`). */
export interface ReloadPluginOptions {
  /** Bounds on INTERVAL and JITTER; CoreDNS's by default. */
  readonly limits?: ReloadLimits;
  /** Source of the jitter draw, in [0, 1). */
  readonly random?: () => number;
}

const sharedKey = defineShared<CorefileWatcher>('reload');

/** The setup of `reload` with these limits and jitter source. */
export function setupWith(options: ReloadPluginOptions = {}): (c: Controller) => void {
  const limits = options.limits ?? coreDnsLimits;
  const random = options.random ?? Math.random;
  return (c) => {
    const parsed = parseReload(c, limits);
    const watcher = c.shared(sharedKey, () => new CorefileWatcher(c.log, createReloadMetrics(c.registry)));
    const config: WatchedConfig = { source: c.corefile, periodMs: reloadPeriodMs(parsed, random), requestReload: () => c.requestReload() };
    c.onStartup(() => watcher.begin(config));
    c.onRestartFailed(() => watcher.resume(config));
    c.onShutdown(() => watcher.stop(config.source));
    c.onFinalShutdown(() => watcher.stop());
  };
}

/** `reload` with CoreDNS's limits. */
export const setup: (c: Controller) => void = setupWith();
