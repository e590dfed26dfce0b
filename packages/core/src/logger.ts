/**
 * CoreDNS's log shape: `[LEVEL] message` on stdout, no timestamp; plugin loggers prefix
 * `plugin/<name>: `. The sink is injectable so tests and embedding programs can capture lines.
 */
export type LogLevel = 'INFO' | 'WARNING' | 'ERROR' | 'DEBUG' | 'FATAL';

/** Where finished log lines go (one line, no trailing newline). */
export type LogSink = (line: string) => void;

export interface Logger {
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  debug(message: string): void;
  /**
   * Writes a `[FATAL]` line and nothing else: stopping the process is the server's job, which a
   * plugin asks for with `Controller.fatal` (CoreDNS's `log.Fatal` does both at once).
   */
  fatal(message: string): void;
  /** A logger whose lines start with `plugin/<name>: `. */
  forPlugin(name: string): Logger;
}

/** Writes each line to stdout. */
export const stdoutSink: LogSink = (line) => {
  process.stdout.write(line + '\n');
};

class PrefixedLogger implements Logger {
  constructor(
    private readonly sink: LogSink,
    private readonly prefix: string,
    private readonly debugEnabled: () => boolean,
  ) {}

  info(message: string): void {
    this.sink(`[INFO] ${this.prefix}${message}`);
  }
  warning(message: string): void {
    this.sink(`[WARNING] ${this.prefix}${message}`);
  }
  error(message: string): void {
    this.sink(`[ERROR] ${this.prefix}${message}`);
  }
  debug(message: string): void {
    if (this.debugEnabled()) this.sink(`[DEBUG] ${this.prefix}${message}`);
  }
  fatal(message: string): void {
    this.sink(`[FATAL] ${this.prefix}${message}`);
  }
  forPlugin(name: string): Logger {
    return new PrefixedLogger(this.sink, `plugin/${name}: `, this.debugEnabled);
  }
}

/**
 * CoreDNS's `log.D`: whether loggers made without a `debug` predicate print `[DEBUG]` lines.
 * Process-wide, as in CoreDNS: the server turns it on while any block of the configuration it
 * serves has *debug*, and off again when a reload drops the last one.
 */
let debugLogging = false;

/** Turns {@link debugLogging} on or off; the server's, for *debug*. */
export function setDebugLogging(on: boolean): void {
  debugLogging = on;
}

/** Whether `[DEBUG]` lines are printed now (CoreDNS's `log.D.Value()`). */
export function isDebugLogging(): boolean {
  return debugLogging;
}

/**
 * A root logger. Debug lines are printed while `debug` returns true; by default while the server
 * serves a configuration with *debug* ({@link isDebugLogging}).
 */
export function createLogger(sink: LogSink = stdoutSink, debug: () => boolean = isDebugLogging): Logger {
  return new PrefixedLogger(sink, '', debug);
}
