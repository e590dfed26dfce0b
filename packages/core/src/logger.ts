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

/** A root logger. Debug lines are dropped unless `debug` returns true (CoreDNS's `debug` plugin). */
export function createLogger(sink: LogSink = stdoutSink, debug: () => boolean = () => false): Logger {
  return new PrefixedLogger(sink, '', debug);
}
