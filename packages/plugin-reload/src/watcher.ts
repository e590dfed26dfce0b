/**
 * The process-wide Corefile watcher. Every period it re-reads the Corefile, hashes its parsed
 * tokens and, when the hash changed, asks the server to reload (CoreDNS's plugin/reload). There is one per
 * process whatever the number of blocks saying `reload`; it follows the configuration that is
 * running across reloads, whoever triggered them.
 *
 *   start ──▶ begin(config) ─ log SHA512, arm timer ─▶ tick ─ same hash ─▶ re-arm
 *                  ▲                                     │
 *                  │  (the new config's onStartup)       └ new hash ─▶ requestReload()
 *                  └─────────────────────────────────────────────────┘  failed ─▶ count, re-arm
 *
 * Each begin/stop bumps `generation`, so a tick that awaited a reload re-arms only if nothing
 * else took over meanwhile, and never twice.
 */
import { readFile } from 'node:fs/promises';
import type { CorefileSource, Logger } from '@foghorn/core';
import { hashCorefile } from './hash.js';
import type { ReloadMetrics } from './metrics.js';
import { errorMessage } from '@foghorn/core';

/** What one running configuration asks of the watcher. */
export interface WatchedConfig {
  /** The Corefile the configuration was built from (`c.corefile`). */
  readonly source: CorefileSource;
  /** Effective period, jitter applied, in ms. */
  readonly periodMs: number;
  /** The server's reload (`c.requestReload`). */
  readonly requestReload: () => Promise<Error | undefined>;
}

export class CorefileWatcher {
  private config: WatchedConfig | undefined;
  /** Hex SHA-512 last acted on; kept after a failed reload so the same content isn't retried. */
  private hash = '';
  /** The `value` label now set on coredns_reload_version_info, if any. */
  private versionLabel: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private generation = 0;

  constructor(
    private readonly log: Logger,
    private readonly metrics: ReloadMetrics,
  ) {}

  /** True while a configuration is being watched. */
  get isWatching(): boolean {
    return this.config !== undefined;
  }

  /**
   * onStartup: watch this configuration. Another block of the configuration already watched
   * only sets the period (the last block wins, as in CoreDNS).
   */
  begin(config: WatchedConfig): void {
    if (this.config?.source === config.source) {
      this.config = config;
      this.arm();
      return;
    }
    try {
      this.hash = hashCorefile(config.source);
    } catch (error) {
      // The server parsed this very text a moment ago; only an import changing in between gets here.
      this.log.warning(`Corefile parse failed: ${errorMessage(error)}`);
      return;
    }
    this.log.info(`Running configuration SHA512 = ${this.hash}`);
    this.config = config;
    this.arm();
  }

  /**
   * onRestartFailed: the old configuration keeps serving, so watch it again, keeping the hash of
   * the Corefile that failed (CoreDNS doesn't retry the same broken content).
   */
  resume(config: WatchedConfig): void {
    if (this.config !== undefined && this.config.source !== config.source) return;
    this.config = config;
    this.arm();
  }

  /** onShutdown of the watched configuration, and final shutdown: stop watching. */
  stop(source?: CorefileSource): void {
    if (source !== undefined && this.config?.source !== source) return;
    this.config = undefined;
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
    const config = this.config;
    // `stdin` can't be read twice: nothing to poll.
    if (!config || config.source.path === 'stdin') return;
    const generation = this.generation;
    this.timer = setTimeout(() => void this.tick(config, generation), config.periodMs);
    // A watcher alone must not keep the process alive.
    this.timer.unref();
  }

  private async tick(config: WatchedConfig, generation: number): Promise<void> {
    this.timer = undefined;
    const path = config.source.path;
    let contents: string;
    try {
      contents = await readFile(path, 'utf8');
    } catch {
      // CoreDNS skips a tick whose Corefile can't be loaded, silently.
      if (generation === this.generation) this.arm();
      return;
    }
    if (generation !== this.generation) return;
    let hash: string;
    try {
      hash = hashCorefile({ path, contents });
    } catch (error) {
      this.log.warning(`Corefile parse failed: ${errorMessage(error)}`);
      this.arm();
      return;
    }
    if (hash === this.hash) {
      this.arm();
      return;
    }
    if (this.versionLabel !== undefined) this.metrics.versionInfo.remove('sha512', this.versionLabel);
    this.hash = hash;
    const error = await config.requestReload();
    this.versionLabel = hash;
    this.metrics.versionInfo.set({ hash: 'sha512', value: hash }, 1);
    if (error) {
      this.log.error(`Corefile changed but reload failed: ${error.message}`);
      this.metrics.failed.inc();
    }
    // After a successful reload the new configuration's begin() (or its absence: stop())
    // decided what happens next; otherwise keep watching the configuration still serving.
    if (generation === this.generation) this.arm();
  }
}
