/**
 * The errors handler: it passes every query on and, when the rest of the chain returns an error
 * (throws a PluginError), logs `RCODE QNAME QTYPE: message` or counts it against the first
 * consolidation pattern it matches. It never writes a reply and rethrows the error unchanged, so
 * the server still answers with the error's rcode.
 */
import { formatDuration, nextOrFailure, PluginError } from '@foghorn/core';
import type { Handler, HandlerResult, Logger, Request, ResponseWriter } from '@foghorn/core';
import type { ConsolidateRule, ErrorLevel } from './setup.js';

/** Timer functions, injectable so tests can end a window without waiting for it. */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** Real timers, unref'd: a pending summary must not keep the process alive. */
export const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A consolidation pattern and the state of its current window. */
class Window {
  /** Errors counted in the current window; 0 means no window is open. */
  count = 0;
  timer: unknown = undefined;
  constructor(readonly rule: ConsolidateRule) {}
}

export class Errors {
  private readonly windows: Window[];
  private stopped = false;

  constructor(
    rules: readonly ConsolidateRule[],
    private readonly log: Logger,
    private readonly timers: Timers = realTimers,
  ) {
    this.windows = rules.map((rule) => new Window(rule));
  }

  /** The handler in front of `next`; all links share this consolidation state. */
  link(next: Handler | null): Handler {
    return new ErrorsHandler(this, next);
  }

  /** Logs or counts an error the chain returned for `req`; anything but a PluginError is ignored. */
  report(req: Request, error: unknown): void {
    // A non-PluginError is a panic: CoreDNS's errors plugin does not see those, the server does.
    if (!(error instanceof PluginError)) return;
    const text = error.message;
    const line = `${error.rcode} ${req.qname} ${req.type}: ${text}`;
    for (const window of this.windows) {
      if (!window.rule.regexp.test(text)) continue;
      // Only the first matching pattern counts; after stop() errors are printed as they come.
      if (this.count(window)) {
        if (window.rule.showFirst && window.count === 1) this.print(window.rule.level, line);
        return;
      }
      break;
    }
    this.log.error(line);
  }

  /** Prints what the open windows counted and stops counting (on shutdown). */
  stop(): void {
    this.stopped = true;
    for (const window of this.windows) {
      if (window.timer === undefined) continue;
      this.timers.clear(window.timer);
      this.summarize(window);
    }
  }

  private count(window: Window): boolean {
    if (this.stopped) return false;
    window.count++;
    if (window.count === 1) window.timer = this.timers.set(() => this.summarize(window), window.rule.durationMs);
    return true;
  }

  private summarize(window: Window): void {
    const count = window.count;
    window.count = 0;
    window.timer = undefined;
    // With show_first a lone error was printed already.
    if (count === 0 || (count === 1 && window.rule.showFirst)) return;
    const { pattern, durationMs, level } = window.rule;
    this.print(level, `${count} errors like '${pattern}' occurred in last ${formatDuration(durationMs)}`);
  }

  private print(level: ErrorLevel, message: string): void {
    switch (level) {
      case 'error':
        return this.log.error(message);
      case 'warning':
        return this.log.warning(message);
      case 'info':
        return this.log.info(message);
      case 'debug':
        return this.log.debug(message);
    }
  }
}

/** One link of the chain; the hot path is a call to next plus a check of its result. */
class ErrorsHandler implements Handler {
  readonly name = 'errors';

  constructor(
    private readonly errors: Errors,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    let result: HandlerResult;
    try {
      // CoreDNS's NextOrFailure: no next handler is an error like any other.
      result = nextOrFailure('errors', this.next, req, w);
    } catch (error) {
      this.errors.report(req, error);
      throw error;
    }
    if (typeof result === 'number') return result;
    return result.catch((error: unknown) => {
      this.errors.report(req, error);
      throw error;
    });
  }
}
