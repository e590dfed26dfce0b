/**
 * Retry pacing and log pacing for watches: many Lighthouse replicas retrying in lockstep
 * against a recovering API server is what jitter prevents, and a retry loop that logs every
 * attempt is what the throttle prevents.
 */
import type { Logger } from '@foghorn/core';

/** Exponential backoff with "equal jitter": each delay is uniform in [d/2, d], d doubling to the cap. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next retry, in ms. */
  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  /** After a success: the next failure waits about `initialMs` again. */
  reset(): void {
    this.attempt = 0;
  }
}

/**
 * At most one warning per `intervalMs`, the next one saying how many were held back; an INFO
 * line when things recover after a warning. Silent once closed, so nothing logs after stop().
 */
export class ThrottledLog {
  private lastWarningAt = Number.NEGATIVE_INFINITY;
  private suppressed = 0;
  private failures = 0;
  private warned = false;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A failed attempt. */
  warning(message: string): void {
    if (this.closed) return;
    this.failures++;
    const now = this.now();
    if (now - this.lastWarningAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const held = this.suppressed > 0 ? ` (${this.suppressed} similar warning${this.suppressed === 1 ? '' : 's'} suppressed)` : '';
    this.logger.warning(message + held);
    this.lastWarningAt = now;
    this.suppressed = 0;
    this.warned = true;
  }

  /** A bug in the consumer, not a connection problem; paced like warnings. */
  error(message: string): void {
    if (this.closed) return;
    const now = this.now();
    if (now - this.lastWarningAt < this.intervalMs) {
      this.suppressed++;
      return;
    }
    this.logger.error(message);
    this.lastWarningAt = now;
  }

  info(message: string): void {
    if (!this.closed) this.logger.info(message);
  }

  /** A success: says so once if a warning went out since the last success. */
  recovered(message: (failures: number) => string): void {
    if (this.closed) return;
    if (this.warned) this.logger.info(message(this.failures));
    this.warned = false;
    this.failures = 0;
  }

  close(): void {
    this.closed = true;
  }
}
