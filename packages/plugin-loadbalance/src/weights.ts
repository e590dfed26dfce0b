/**
 * The weight file of the `weighted` policy (CoreDNS `plugin/loadbalance/weighted.go`): parsing,
 * and the reload that re-reads it when its MD5 changes.
 *
 *     # comment
 *     www.example.com        <- a domain name (a trailing dot is added)
 *     100.64.1.1 3           <- an address of that domain and its weight, 1..255
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { errorMessage, formatDuration, pollEvery } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { ipKey, parseIp } from './ip.js';
import type { WeightTable } from './policy.js';

/** Raised when the file cannot be read; CoreDNS's `errOpen`, with its text. */
export class WeightFileOpenError extends Error {
  constructor() {
    super('weight file open error');
  }
}

/** Parses the weight file's text; throws CoreDNS's error texts naming `file`. */
export function parseWeights(text: string, file: string): WeightTable {
  const domains = new Map<string, Map<string, number>>();
  let current: Map<string, number> | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    if (fields.length === 1) {
      const name = fields[0]!;
      if (parseIp(name) !== null) throw new Error(`wrong domain name:"${name}" in weight file ${file}. (Maybe a missing weight value?)`);
      const domain = name.endsWith('.') ? name : `${name}.`;
      current = domains.get(domain);
      if (!current) {
        current = new Map();
        domains.set(domain, current);
      }
    } else if (fields.length === 2) {
      const [address, value] = fields as [string, string];
      const ip = parseIp(address);
      if (ip === null) throw new Error(`wrong IP address:"${address}" in weight file ${file}`);
      const weight = /^\d+$/.test(value) ? Number(value) : NaN;
      if (!(weight >= 1 && weight <= 255)) throw new Error(`wrong weight value:"${value}" in weight file ${file}`);
      if (!current) throw new Error(`missing domain name in weight file ${file}`);
      // The first weight listed for an address is the one looked up.
      const key = ipKey(ip);
      if (!current.has(key)) current.set(key, weight);
    } else {
      throw new Error(`could not parse weight line:"${line}" in weight file ${file}`);
    }
  }
  return domains;
}

/**
 * The weight file as it is loaded over time: `load()` reads it, and when the content's MD5
 * differs from the last read, parses it and hands the table to `apply`. Like CoreDNS, the new
 * MD5 is remembered before parsing, so a broken file is reported once, not on every tick.
 */
export class WeightFile {
  private md5 = '';

  constructor(
    readonly path: string,
    private readonly apply: (table: WeightTable) => void,
    private readonly log: Logger,
  ) {}

  /** Reads and, when changed, parses the file. Throws {@link WeightFileOpenError} or a parse error. */
  async load(): Promise<void> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
    } catch {
      throw new WeightFileOpenError();
    }
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (md5 === this.md5) return;
    this.md5 = md5;
    this.apply(parseWeights(bytes.toString('utf8'), this.path));
    this.log.info(`Successfully reloaded weight file ${this.path}`);
  }

  /**
   * The startup read: a file that cannot be opened is a warning when it will be retried
   * (`reloadMs` > 0) and an error otherwise; a parse error is always an error.
   */
  async start(reloadMs: number): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      if (!(error instanceof WeightFileOpenError) || reloadMs === 0) throw error;
      this.log.warning(`Failed to open weight file:${error.message}. Will try again in ${formatDuration(reloadMs)}`);
    }
  }

  /** Re-reads every `reloadMs`; failures are logged and the old weights kept. Returns a stop function. */
  watch(reloadMs: number): () => void {
    return pollEvery(reloadMs, () => this.load().catch((error: unknown) => this.log.error(errorMessage(error))));
  }
}
