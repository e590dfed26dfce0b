/**
 * The secondary zones of one server block at run time, after CoreDNS's `plugin/secondary/setup.go`
 * and `plugin/file/secondary.go`: transfer each zone from its primaries until one succeeds,
 * then keep it fresh by the timers of its SOA (RFC 1035 §4.3.5) and by NOTIFY (RFC 1996).
 *
 *   start ──► initial transfer ──(fails: 250 ms, doubling to 10 s)──► again
 *                   │ ok
 *                   ▼
 *   ┌──────► serving ──(refresh, or a NOTIFY from a primary)──► SOA check at the primaries
 *   │           ▲                                                  │         │ newer: AXFR
 *   │           └───────────────── same serial, or AXFR ok ◄───────┘─────────┘
 *   │                                                              │ no answer, or AXFR failed
 *   └──── ok ◄── retrying (every retry) ◄──────────────────────────┘
 *                    └── no success for `expire` since the last one: expired, SERVFAIL
 *
 * A zone that has data keeps serving it through every failure until it expires; a transfer that
 * fails, breaks a limit or goes backwards in serial changes nothing. Each problem is logged
 * once, until the zone transfers again. The data is carried across Corefile reloads, so a
 * reload does not leave the zone unanswered while it transfers again.
 */
import { defineShared, errorMessage, matchZone } from '@foghorn/core';
import type { Logger, SharedKey, Transferer } from '@foghorn/core';
import { serialNewer, ZoneData } from '@foghorn/core/wire';
import type { Answer } from 'dns-packet';
import { primarySerial, transferIn } from './axfr.js';
import type { TransferLimits } from './axfr.js';

/** One zone of a `secondary` directive. */
export interface SecondaryConfig {
  /** Lower-case, fully qualified origin. */
  readonly origin: string;
  /** `host:port` of each primary, tried in order. */
  readonly primaries: readonly string[];
}

/** CoreDNS's first retry of a failed initial transfer; it doubles up to {@link INITIAL_RETRY_MAX_MS}. */
const INITIAL_RETRY_MS = 250;
const INITIAL_RETRY_MAX_MS = 10_000;
/** CoreDNS delays a refresh by up to 5 s and a retry by up to 2 s, so secondaries do not ask at once. */
const REFRESH_JITTER_MS = 5_000;
const RETRY_JITTER_MS = 2_000;

/** Zone data by origin and primaries, handed from one configuration to the next on reload. */
interface Carried {
  owner: object;
  data: ZoneData;
}
const CarriedZones: SharedKey<Map<string, Carried>> = defineShared<Map<string, Carried>>('secondary/zones');

/**
 * Up to `maxMs` of random delay, but never more than a tenth of the interval it delays: a zone
 * with a 2 s refresh is checked every 2 to 2.2 s, not every 2 to 7 s.
 */
function jitter(maxMs: number, intervalMs: number): number {
  return Math.floor(Math.random() * Math.min(maxMs, intervalMs / 10));
}

/** A SOA timer in milliseconds; CoreDNS makes a 0 one second. */
function soaTimerMs(seconds: number | undefined): number {
  return Math.max(seconds ?? 0, 1) * 1000;
}

function timer(ms: number, run: () => void): NodeJS.Timeout {
  const t = setTimeout(run, ms);
  // Timers never keep a stopping process alive; the server's sockets do while it runs.
  t.unref();
  return t;
}

export class SecondaryZone {
  /** What it serves now: null until the first transfer. */
  data: ZoneData | null = null;
  /** No refresh succeeded for the SOA's expire: answers are SERVFAIL (RFC 1035 §4.3.5). */
  expired = false;
  private phase: 'initial' | 'serving' | 'retrying' | 'stopped' = 'initial';
  private next: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private backoffMs = INITIAL_RETRY_MS;
  /** A check or transfer is running; `again` asks for another one when it ends (a NOTIFY came). */
  private busy = false;
  private again = false;
  private readonly abort = new AbortController();
  /** Problems logged since the last successful transfer or check. */
  private readonly logged = new Set<string>();

  constructor(
    readonly config: SecondaryConfig,
    private readonly limits: TransferLimits,
    /** `plugin/secondary:` lines. */
    private readonly log: Logger,
    /** `plugin/file:` lines: CoreDNS logs transfers and NOTIFY from the file package. */
    private readonly fileLog: Logger,
    /** Called after each transfer that changed the data (for *transfer*'s NOTIFY). */
    private readonly changed: (zone: string) => void,
  ) {}

  get origin(): string {
    return this.config.origin;
  }

  /** Read through a getter: the phase changes across the awaits of a transfer. */
  private get stopped(): boolean {
    return this.phase === 'stopped';
  }

  /** Starts transferring; `seed` is the data a previous configuration served, refreshed at once. */
  start(seed: ZoneData | undefined): void {
    if (seed === undefined) {
      void this.initial();
      return;
    }
    this.data = seed;
    this.succeeded();
    void this.refresh('refresh');
  }

  stop(): void {
    this.phase = 'stopped';
    clearTimeout(this.next);
    clearTimeout(this.expiry);
    this.abort.abort();
  }

  /** Whether `address` is one of the zone's primaries: only they may NOTIFY (CoreDNS's `isNotify`). */
  isPrimary(address: string): boolean {
    for (const primary of this.config.primaries) {
      const host = primary.slice(0, primary.lastIndexOf(':'));
      if ((host.startsWith('[') ? host.slice(1, -1) : host) === address) return true;
    }
    return false;
  }

  /** A NOTIFY from a primary: check its serial now, as if the refresh timer fired (RFC 1996 §4.7). */
  notify(from: string): void {
    this.fileLog.info(`Notify from ${from} for ${this.origin}: checking transfer`);
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    clearTimeout(this.next);
    if (this.phase === 'initial') {
      this.backoffMs = INITIAL_RETRY_MS;
      void this.initial();
    } else void this.refresh('notify', from);
  }

  /** The first transfer, tried until it works. */
  private async initial(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    const error = await this.transfer();
    this.busy = false;
    if (this.stopped) return;
    if (error === undefined) {
      this.succeeded();
    } else {
      const delay = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, INITIAL_RETRY_MAX_MS);
      this.problem(`initial: ${error}`, () => this.log.warning(`All '${this.origin}' masters failed to transfer, retrying in ${formatMs(delay)}: ${error}`));
      this.next = timer(delay, () => void this.initial());
    }
    this.followUp();
  }

  /**
   * Asks the primaries for the zone's serial and transfers it when theirs is newer. `kind` says
   * what asked, for the logs; a failure starts (or continues) the retry timer.
   */
  private async refresh(kind: 'refresh' | 'retry' | 'notify', from?: string): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    clearTimeout(this.next);
    let serial: number | undefined;
    let checkError = 'no primary';
    for (const primary of this.config.primaries) {
      try {
        serial = await primarySerial(this.origin, primary, this.limits.timeoutMs, this.abort.signal);
        break;
      } catch (error) {
        checkError = errorMessage(error);
      }
    }
    let ok: boolean;
    if (serial === undefined) {
      const message = kind === 'notify' ? `Notify from ${from} for ${this.origin}: failed primary check: ${checkError}` : `Failed ${kind} check ${checkError}`;
      this.problem(`check: ${checkError}`, () => this.fileLog.warning(message));
      ok = false;
    } else if (this.data === null || serialNewer(serial, this.data.serial)) {
      // A failure is logged by the transfer, once; CoreDNS logs it again for a NOTIFY.
      ok = (await this.transfer()) === undefined;
    } else {
      if (kind === 'notify') this.fileLog.info(`Notify from ${from} for ${this.origin}: no SOA serial increase seen`);
      ok = true;
    }
    this.busy = false;
    if (this.stopped) return;
    if (ok) this.succeeded();
    else this.retrying();
    this.followUp();
  }

  /** A NOTIFY that came while busy is acted on now. */
  private followUp(): void {
    if (!this.again || this.stopped) return;
    this.again = false;
    clearTimeout(this.next);
    if (this.phase === 'initial') void this.initial();
    else void this.refresh('notify', 'a primary');
  }

  /** The zone is current: refresh after the SOA's refresh, expire only after its expire. */
  private succeeded(): void {
    const soa = this.data!.soa.data;
    if (this.expired) this.fileLog.info(`Zone ${this.origin} is current again with ${this.data!.serial} SOA serial`);
    this.expired = false;
    this.phase = 'serving';
    this.logged.clear();
    const refreshMs = soaTimerMs(soa.refresh);
    clearTimeout(this.next);
    this.next = timer(refreshMs + jitter(REFRESH_JITTER_MS, refreshMs), () => void this.refresh('refresh'));
    clearTimeout(this.expiry);
    const expireMs = soaTimerMs(soa.expire);
    const expire = (): void => {
      if (this.phase === 'retrying') {
        this.expired = true;
        this.problem('expired', () => this.fileLog.error(`Zone ${this.origin} is expired`));
      } else if (!this.stopped) this.expiry = timer(expireMs, expire);
    };
    this.expiry = timer(expireMs, expire);
  }

  /** A check or transfer failed: try again after the SOA's retry; the expire timer runs on. */
  private retrying(): void {
    this.phase = 'retrying';
    const retryMs = soaTimerMs(this.data!.soa.data.retry);
    clearTimeout(this.next);
    this.next = timer(retryMs + jitter(RETRY_JITTER_MS, retryMs), () => void this.refresh('retry'));
  }

  /**
   * Transfers the zone from the first primary that gives a complete one; undefined when it
   * did, else the last primary's error. A zone older than the one served is refused.
   */
  private async transfer(): Promise<string | undefined> {
    let last = 'no primary';
    for (const primary of this.config.primaries) {
      let data: ZoneData;
      let outOfZone: number;
      try {
        const zone = await transferIn(this.origin, primary, this.limits, this.abort.signal);
        if (this.data !== null && zone.serial !== this.data.serial && !serialNewer(zone.serial, this.data.serial)) {
          throw new Error(`transferred SOA serial ${zone.serial} is older than the ${this.data.serial} served`);
        }
        data = ZoneData.fromRecords(zone.records, this.origin, primary);
        outOfZone = zone.outOfZone;
      } catch (error) {
        if (this.stopped) return 'stopped';
        last = errorMessage(error);
        this.problem(`transfer ${primary}: ${last}`, () => this.fileLog.error(`Failed to transfer \`${this.origin}' from "${primary}": ${last}`));
        continue;
      }
      if (this.stopped) return 'stopped';
      if (outOfZone > 0) this.fileLog.warning(`Transfer of \`${this.origin}' from "${primary}": ignored ${outOfZone} records outside the zone`);
      const unchanged = this.data !== null && this.data.serial === data.serial;
      this.data = data;
      this.fileLog.info(`Transferred: ${this.origin} from ${primary}`);
      if (!unchanged) this.changed(this.origin);
      return undefined;
    }
    return last;
  }

  /** Logs a problem unless it was logged since the zone was last current. */
  private problem(key: string, write: () => void): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    write();
  }
}

/** Go's `time.Duration.String` for the backoff delays CoreDNS logs (`250ms`, `1s`, `10s`). */
function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

/** The block's secondary zones: matched by query name, transferred out by *transfer*. */
export class SecondaryZones implements Transferer {
  readonly name = 'secondary';
  readonly names: readonly string[];
  private readonly zones = new Map<string, SecondaryZone>();
  private readonly listeners: ((zone: string) => void)[] = [];
  private carried: Map<string, Carried> | undefined;

  constructor(configs: readonly SecondaryConfig[], limits: TransferLimits, log: Logger, fileLog: Logger) {
    for (const config of configs) {
      this.zones.set(config.origin, new SecondaryZone(config, limits, log, fileLog, (zone) => this.onChanged(zone)));
    }
    this.names = [...this.zones.keys()];
  }

  get(origin: string): SecondaryZone | undefined {
    return this.zones.get(origin);
  }

  /** The origin of the zone `qname` falls in (longest match), or undefined. */
  match(qname: string): string | undefined {
    return matchZone(this.names, qname);
  }

  /** Starts every zone, from the data a previous configuration left when it has some. */
  start(carried: Map<string, Carried>): void {
    this.carried = carried;
    for (const zone of this.zones.values()) {
      const previous = carried.get(carryKey(zone.config));
      if (previous !== undefined) previous.owner = this;
      zone.start(previous?.data);
    }
  }

  /** Stops every zone; data no newer configuration took over is let go. */
  stop(): void {
    for (const zone of this.zones.values()) {
      zone.stop();
      const key = carryKey(zone.config);
      if (this.carried?.get(key)?.owner === this) this.carried.delete(key);
    }
  }

  transfer(zone: string, serial: number): Iterable<readonly Answer[]> | null {
    const z = this.zones.get(zone);
    // RFC 1035 §4.3.5: an expired zone is not served, by query or by transfer.
    if (z?.data == null || z.expired) return null;
    return z.data.transfer(serial);
  }

  onZoneChange(notify: (zone: string) => void): void {
    this.listeners.push(notify);
  }

  private onChanged(origin: string): void {
    const zone = this.zones.get(origin)!;
    this.carried?.set(carryKey(zone.config), { owner: this, data: zone.data! });
    for (const notify of this.listeners) notify(origin);
  }
}

function carryKey(config: SecondaryConfig): string {
  return `${config.origin} ${config.primaries.join(' ')}`;
}

export { CarriedZones };
