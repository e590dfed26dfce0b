/**
 * A real dnstap collector for tests: `fstrm_capture` (Debian's fstrm-bin, the reference Frame
 * Streams reader) listening on a unix socket or a loopback TCP port and writing what it accepts
 * to a file, read back with `dnstap-ldns -r FILE -y` (Debian's dnstap-ldns, the reference
 * decoder). What a test asserts on is what those tools made of the bytes Foghorn wrote.
 */
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { hasTool, requireFixture } from './fixtures.js';
import { freeTcpPort } from './http.js';
import { delay, eventually } from './wait.js';

const run = promisify(execFile);

/** One dnstap payload as `dnstap-ldns -y` prints it (YAML keys; DNS messages as ldns text). */
export interface DnstapRecord {
  readonly type: string;
  readonly identity?: string;
  readonly version?: string;
  readonly extra?: string;
  readonly message: {
    readonly type: string;
    readonly query_time?: Date;
    readonly response_time?: Date;
    readonly socket_family?: string;
    readonly socket_protocol?: string;
    readonly query_address?: string;
    readonly query_port?: number;
    readonly response_address?: string;
    readonly response_port?: number;
    /** The query in ldns's text (`;example.org.\tIN\tA`), with `full`. */
    readonly query_message?: string;
    readonly response_message?: string;
  };
}

/** A running `fstrm_capture`. */
export interface DnstapCollector {
  /** The SOCKET argument for a Corefile: `unix:///tmp/.../dnstap.sock` or `tcp://127.0.0.1:PORT`. */
  readonly endpoint: string;
  /** The unix socket path ('' over TCP). */
  readonly path: string;
  /** The TCP port (0 on a unix socket). */
  readonly port: number;
  /** Everything written so far, decoded by dnstap-ldns (fstrm_capture flushes its file first). */
  records(): Promise<DnstapRecord[]>;
  /** Waits until `records()` satisfies `check` (returns anything but false without throwing). */
  until(check: (records: DnstapRecord[]) => unknown, timeoutMs?: number): Promise<DnstapRecord[]>;
  /** Connections the collector has accepted so far. */
  connections(): number;
  /** Stops the collector (its socket goes away) and returns what it wrote. */
  stop(): Promise<DnstapRecord[]>;
  /** Stops it if running and removes its files. */
  close(): Promise<void>;
}

/** Options for {@link startDnstapCollector}. */
export interface DnstapCollectorOptions {
  /** Listen on 127.0.0.1:`port` over TCP instead of a unix socket (0: a free port). */
  readonly tcp?: { readonly port?: number } | undefined;
  /** Reuse this unix socket path (a collector coming back where another was). */
  readonly path?: string | undefined;
}

/**
 * Starts `fstrm_capture -t protobuf:dnstap.Dnstap` on a fresh unix socket (or TCP port) and
 * waits until it listens. Close it in `t.after`.
 *
 * @example
 * const collector = await startDnstapCollector();
 * t.after(() => collector.close());
 * const server = await startServer(`.:0 {\n dnstap ${collector.endpoint} full\n whoami\n}\n`, ...);
 * const records = await collector.until((r) => r.length === 2);
 */
export async function startDnstapCollector(options: DnstapCollectorOptions = {}): Promise<DnstapCollector> {
  requireFixture(hasTool('sh', ['-c', 'command -v fstrm_capture && command -v dnstap-ldns']), 'fstrm_capture (fstrm-bin) and dnstap-ldns (dnstap-ldns)');
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnstap-'));
  const file = join(dir, 'capture.fstrm');
  const port = options.tcp === undefined ? 0 : options.tcp.port || (await freeTcpPort());
  const path = options.tcp === undefined ? (options.path ?? join(dir, 'dnstap.sock')) : '';
  const where = options.tcp === undefined ? ['-u', path] : ['-a', '127.0.0.1', '-p', String(port)];
  const child = spawn('fstrm_capture', ['-d', '-d', '-d', '-t', 'protobuf:dnstap.Dnstap', ...where, '-w', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (log += text));
  let running = true;
  child.once('exit', () => (running = false));
  await eventually(() => {
    if (!running) throw new Error(`fstrm_capture exited: ${log}`);
    return log.includes('opened output file');
  }, 5000, 'fstrm_capture to listen');

  const decode = async (): Promise<DnstapRecord[]> => {
    const { stdout } = await run('dnstap-ldns', ['-y', '-r', file], { maxBuffer: 64 * 1024 * 1024 });
    return parseAllDocuments(stdout, { version: '1.1', customTags: ['timestamp'] })
      .map((document) => document.toJS() as DnstapRecord | null)
      .filter((record): record is DnstapRecord => record !== null);
  };
  const records = async (): Promise<DnstapRecord[]> => {
    if (running) {
      const flushes = log.split('received SIGHUP').length;
      child.kill('SIGHUP');
      await eventually(() => !running || log.split('received SIGHUP').length > flushes, 3000, 'fstrm_capture to flush');
    }
    return decode();
  };
  const stop = async (): Promise<DnstapRecord[]> => {
    if (running) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    return decode();
  };
  return {
    endpoint: options.tcp === undefined ? `unix://${path}` : `tcp://127.0.0.1:${port}`,
    path,
    port,
    records,
    async until(check, timeoutMs = 5000) {
      // Each look flushes the collector and runs the decoder: every 100 ms, not eventually's 5.
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const last = await records();
        let failure: unknown = new Error(`timed out after ${timeoutMs} ms waiting for the dnstap records expected; got ${JSON.stringify(last.map((r) => r.message.type))}`);
        try {
          if (check(last) !== false) return last;
        } catch (error) {
          failure = error;
        }
        if (Date.now() > deadline) throw failure;
        await delay(100);
      }
    },
    connections: () => log.split('accepted new connection').length - 1,
    stop,
    async close() {
      await stop().catch(() => []);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
