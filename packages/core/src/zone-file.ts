/**
 * A zone served from a file and re-read when it changes, as CoreDNS's `plugin/file/reload.go`
 * re-reads it for *file* and *auto*: the new data replaces the old only when the SOA serial
 * differs (or, by modification time, when the file is newer), and anything that goes wrong keeps
 * the zone that was serving.
 *
 * Two guards CoreDNS lacks. A file being written while it is read (an editor saving in place, a
 * copy still running) is not served half-written: a file is read only once it has not changed for
 * a moment, and read again when its size or modification time moved under the read. (A writer
 * that pauses longer than that moment mid-file can still be caught half-way: write elsewhere and
 * rename into place.) And each problem is logged once: a broken file is
 * reported when it breaks, not at every reload tick until it is fixed. A file that did not change
 * since it was last read is not read again (CoreDNS reads up to the SOA at every tick).
 */
import { readFile, stat } from 'node:fs/promises';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { serialNewer, ZoneData } from './zone.js';

/**
 * A file changed less than this long ago may still be being written (an editor saving in bursts,
 * a script appending line by line): it is read once it has been left alone this long.
 */
const SETTLE_MS = 100;
/** How long one reload waits for a file to hold still before it gives up until the next one. */
const SETTLE_BUDGET_MS = 1000;

/** What a reload did. */
export type ZoneFileReload = 'loaded' | 'unchanged' | 'failed';

/** What identifies one version of a file without reading it. */
interface Seen {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** One zone's file and the data it serves now. */
export class ZoneFile {
  /** The file as last read (or, for `reload_by_mtime`, as at startup): unchanged, it is not read again. */
  private seen: Seen | undefined;
  /** The last problem logged, so the next reload that hits it again stays quiet. */
  private problem: string | undefined;

  constructor(
    /** Lower-case, fully qualified origin. */
    readonly origin: string,
    /** The file; *auto* repoints it when a zone's file moves. */
    public path: string,
    private readonly log: Logger,
    /** Reload when the file is newer rather than when its serial differs (`reload_by_mtime`). */
    private readonly byMtime = false,
    /** What it serves now: null until the file could be read. */
    public data: ZoneData | null = null,
  ) {}

  /** Remembers the file as it is now, so only a later change reloads it by mtime. */
  async markRead(): Promise<void> {
    try {
      this.seen = seenOf(await stat(this.path));
    } catch {
      // Not there yet: any file that appears later is newer.
      this.seen = undefined;
    }
  }

  /**
   * Reads the file again when it changed since the last read, and swaps the data in when its
   * serial differs (or, by mtime, whenever it is newer). Errors keep the old data and are logged
   * with CoreDNS's words, each once until it is fixed. A file that did not change (same inode,
   * size and modification time) is not read at all: a big zone costs a `stat` per reload.
   * `quietFirstLoad` leaves the first successful load unlogged, for a caller that logs its own
   * line then (*auto*'s "Inserting zone").
   */
  async reload(quietFirstLoad = false): Promise<ZoneFileReload> {
    const { origin, path } = this;
    let now: Seen;
    try {
      now = seenOf(await stat(path));
    } catch (error) {
      return this.fail(this.byMtime ? `Failed to stat zone "${origin}" in "${path}": ${errorMessage(error)}` : `Failed to open zone "${origin}" in "${path}": ${errorMessage(error)}`);
    }
    const last = this.seen;
    if (this.byMtime ? last !== undefined && now.mtimeMs <= last.mtimeMs : last !== undefined && this.data !== null && sameFile(now, last)) return 'unchanged';
    let read: { text: string; seen: Seen } | undefined;
    try {
      read = await readSettled(path);
    } catch (error) {
      return this.fail(`Failed to open zone "${origin}" in "${path}": ${errorMessage(error)}`);
    }
    if (read === undefined) return this.fail(`Zone "${origin}" in "${path}" kept changing for ${SETTLE_BUDGET_MS / 1000}s while it was read: trying again at the next reload`);
    // This version of the file has been read: whatever it holds, it is not read again.
    this.seen = read.seen;
    let data: ZoneData;
    try {
      data = ZoneData.parse(read.text, origin, path);
    } catch (error) {
      return this.fail(`Parsing zone "${origin}": ${errorMessage(error)}`);
    }
    this.problem = undefined;
    const old = this.data;
    if (!this.byMtime && old !== null && data.serial === old.serial) return 'unchanged';
    this.data = data;
    if (old === null && quietFirstLoad) return 'loaded';
    this.log.info(`Successfully reloaded zone "${origin}" in "${path}" with ${data.serial} SOA serial`);
    if (old !== null && serialNewer(old.serial, data.serial)) {
      // Served as written (CoreDNS reloads on any change), but no secondary will transfer it.
      this.log.warning(`Zone "${origin}" went back from SOA serial ${old.serial} to ${data.serial}: secondaries keep serial ${old.serial} until it passes it`);
    }
    return 'loaded';
  }

  private fail(message: string): ZoneFileReload {
    if (message !== this.problem) this.log.error(message);
    this.problem = message;
    return 'failed';
  }
}

function seenOf(stats: { ino: number; size: number; mtimeMs: number }): Seen {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

function sameFile(a: Seen, b: Seen): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/**
 * The file's text once it holds still: not changed in the last {@link SETTLE_MS}, and the same
 * size, inode and modification time after the read as before it, with all its bytes read.
 * Undefined when it kept changing for {@link SETTLE_BUDGET_MS}.
 */
async function readSettled(path: string): Promise<{ text: string; seen: Seen } | undefined> {
  const giveUpAt = Date.now() + SETTLE_BUDGET_MS;
  for (;;) {
    const before = seenOf(await stat(path));
    // A modification time in the future (a skewed clock) counts as settled, or it never would.
    const age = Date.now() - before.mtimeMs;
    if (age >= 0 && age < SETTLE_MS) {
      if (Date.now() + SETTLE_MS - age > giveUpAt) return undefined;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS - age));
      continue;
    }
    const bytes = await readFile(path);
    const after = seenOf(await stat(path));
    if (sameFile(before, after) && bytes.length === after.size) return { text: bytes.toString('utf8'), seen: after };
    if (Date.now() + SETTLE_MS > giveUpAt) return undefined;
  }
}
