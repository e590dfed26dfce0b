/**
 * A zone served from a file and re-read when it changes, as CoreDNS's `plugin/file/reload.go`
 * re-reads it for *file* and *auto*: the new data replaces the old only when the SOA serial
 * differs (or, by modification time, when the file is newer), and anything that goes wrong keeps
 * the zone that was serving.
 *
 * Two guards CoreDNS lacks. A file being written while it is read (an editor saving in place, a
 * copy still running) is noticed by its size and modification time changing under the read, and
 * read again instead of serving half a zone. And each problem is logged once: a broken file is
 * reported when it breaks, not at every reload tick until it is fixed. A file that did not change
 * since it was last read is not read again (CoreDNS reads up to the SOA at every tick).
 */
import { readFile, stat } from 'node:fs/promises';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { serialNewer, ZoneData } from './zone.js';

/** Reads of a file that keeps changing under them before a reload gives up until the next tick. */
const MID_READ_TRIES = 3;
/** Pause between those reads: long enough for a writer to finish a small file. */
const MID_READ_PAUSE_MS = 50;

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
   */
  async reload(): Promise<ZoneFileReload> {
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
    if (read === undefined) return this.fail(`Zone "${origin}" in "${path}" changed while it was read ${MID_READ_TRIES} times: trying again at the next reload`);
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
    if (old === null) return 'loaded';
    this.log.info(`Successfully reloaded zone "${origin}" in "${path}" with ${data.serial} SOA serial`);
    if (serialNewer(old.serial, data.serial)) {
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
 * The file's text, read again while its size or modification time moved during the read (or
 * the bytes read do not add up to its size): undefined when it never held still.
 */
async function readSettled(path: string): Promise<{ text: string; seen: Seen } | undefined> {
  for (let i = 0; i < MID_READ_TRIES; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, MID_READ_PAUSE_MS));
    const before = seenOf(await stat(path));
    const bytes = await readFile(path);
    const after = seenOf(await stat(path));
    if (sameFile(before, after) && bytes.length === after.size) return { text: bytes.toString('utf8'), seen: after };
  }
  return undefined;
}
