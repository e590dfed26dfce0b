/**
 * The cache handler (CoreDNS's plugin/cache): answers repeats from stored wire bytes, sends misses down the
 * chain through a writer that stores what comes back, and refreshes popular or stale entries in
 * the background, one refresh per entry at a time.
 *
 *   query ─► in zones? ─no──────────────────────────────────────────────► next
 *              │yes
 *              ▼
 *           lookup (denial, then success) ─miss─► next, via CachingWriter ─► store + reply
 *              │hit
 *              ├─ fresh: reply from bytes; maybe prefetch in the background
 *              └─ stale: immediate → reply TTL 0 + background refresh
 *                        verify    → ask next first, stale reply if that fails
 */
// Bindings, not globals: per query (docs/architecture.md, "Per-query code").
import { Buffer } from 'node:buffer';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Flags, isSubdomain, matchZone, nextOrFailure, Rcode, Request } from '@foghorn/core';
import type { Handler, HandlerResult, ResponseWriter, Transport } from '@foghorn/core';
import { classNumber, MAX_TCP_SIZE, packetRcode, ResponseType, typeNumber } from '@foghorn/core/wire';
import { canonicalName, clampTtl, classify, isDenial, minimalTtl } from './classify.js';
import { EntryStore, keyBits, Tier } from './store.js';
import { serverCells } from './metrics.js';
import type { CacheMetrics, ServerCells } from './metrics.js';
import type { CacheOptions } from './setup.js';

/** Where {@link Cache.put} encodes a reply before the store copies it; allocated on the first miss. */
let scratch: Buffer | undefined;

/** Who a {@link CachingWriter} writes for. */
const enum Mode {
  /** A miss: store, and pass the reply on to the client. */
  Client,
  /** A prefetch: store only. */
  Prefetch,
  /** A stale entry's background refresh: store only a matching NOERROR or NXDOMAIN reply. */
  Stale,
  /** serve_stale verify: store and pass on only a matching NOERROR or NXDOMAIN reply. */
  Verify,
}

/** CoreDNS's `request.Match`: one question, QR set, same name (any case), type and class. */
function replyMatches(msg: Packet, req: Request): boolean {
  const questions = msg.questions;
  if (questions?.length !== 1 || msg.type !== 'response') return false;
  const q = questions[0]!;
  return canonicalName(q.name) === req.qname && typeNumber(q.type) === req.qtype && classNumber(q.class) === req.qclass;
}

/** The records of a section but OPT (the section itself when it has none). */
function withoutOpt(rrs: Answer[] | undefined): Answer[] | undefined {
  if (rrs === undefined) return rrs;
  for (const rr of rrs) if (rr.type === 'OPT') return rrs.filter((r) => r.type !== 'OPT');
  return rrs;
}

/** Every record but OPT, with its TTL set to `ttl` (CoreDNS's `filterRRSlice`). */
function withTtl(rrs: readonly Answer[] | undefined, ttl: number): Answer[] {
  const out: Answer[] = [];
  if (rrs === undefined) return out;
  for (const rr of rrs) if (rr.type !== 'OPT') out.push({ ...rr, ttl } as Answer);
  return out;
}

/**
 * A copy of the query with AD set, as CoreDNS 1.14.7 sends down the chain on a miss or a
 * refresh; a refresh is marked TCP so that nothing below truncates it.
 */
function chainCopy(req: Request, transport: Transport): Request {
  const raw = Buffer.from(req.raw);
  raw[3] = raw[3]! | Flags.AD;
  const copy = Request.fromWire(raw, transport, req.remoteAddress, req.remotePort);
  copy.zone = req.zone;
  copy.server = req.server;
  copy.metadata = req.metadata;
  return copy;
}

/** The response cache of one server block. */
export class Cache implements Handler {
  readonly name = 'cache';
  private next: Handler | null = null;
  /** Both caches' entries, keyed on DO, CD, type, class and the lower-cased name. */
  private readonly store: EntryStore;
  private readonly allZones: boolean;
  private readonly zonesLabel: string;
  /** The block's view, the `view` label ('' without one): set once the block's plugins are set up (CoreDNS's `viewMetricLabel`). */
  view = '';
  private readonly staleUpToSeconds: number;
  private readonly cellsByServer = new Map<string, ServerCells>();
  /** Cells of the last server label seen: a listener sends runs of queries with the same one. */
  private lastServer: string | undefined;
  private lastCells: ServerCells | undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly options: CacheOptions,
    private readonly metrics: CacheMetrics,
    /** The clock in milliseconds; tests move it instead of sleeping. */
    readonly now: () => number = Date.now,
    /** Picks the entry a full shard evicts, in [0, 1); tests fix it. */
    random: () => number = Math.random,
  ) {
    this.allZones = options.zones.includes('.');
    this.zonesLabel = options.zones.join(',');
    this.staleUpToSeconds = Math.trunc(options.staleUpToMs / 1000);
    this.store = new EntryStore(options.success.capacity, options.denial.capacity, random);
  }

  /** Called once when the chain is built. */
  link(next: Handler | null): Handler {
    this.next = next;
    return this;
  }

  /** Resolves when no background refresh is in flight (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Lets refreshes in flight finish; nothing else holds resources. */
  async close(): Promise<void> {
    await this.whenIdle();
  }

  /** Entries in the success and denial caches. */
  get size(): { success: number; denial: number } {
    return { success: this.store.count(Tier.Success), denial: this.store.count(Tier.Denial) };
  }

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (!this.allZones && !this.inZones(req.qname)) return nextOrFailure(this.name, this.next, req, w);
    const cells = this.cellsFor(req.server);
    cells.requests.value++;
    const now = this.now();
    const bits = keyBits(req);
    const slot = this.lookup(req, bits, now, cells);
    if (slot < 0) {
      cells.misses.value++;
      const copy = chainCopy(req, req.transport);
      return nextOrFailure(this.name, this.next, copy, new CachingWriter(this, copy, w, bits, cells, Mode.Client, (req.flags & Flags.AD) !== 0));
    }
    const store = this.store;
    const ttl = store.ttlAt(slot, now);
    let replyTtl = ttl;
    if (ttl < 0) {
      if (this.options.staleMode === 'verify') return this.verifyStale(req, w, slot, bits, cells);
      replyTtl = this.options.staleResponseTtlSeconds;
      this.refresh(req, slot, bits, cells, Mode.Stale, now);
      cells.servedStale.value++;
    } else if (this.shouldPrefetch(slot, now)) {
      this.refresh(req, slot, bits, cells, Mode.Prefetch, now);
    }
    // The size recorders count: without the OPT a hit adds for an EDNS client. CoreDNS's hit is a
    // message built from an item that keeps no OPT, and its scrub adds the OPT after the
    // recorders have counted.
    w.writeWire(store.reply(slot, req, this.options.keepTtl ? store.ttlSeconds(slot) : replyTtl), store.length(slot));
    return 0;
  }

  private inZones(qname: string): boolean {
    for (const zone of this.options.zones) if (isSubdomain(qname, zone)) return true;
    return false;
  }

  private cellsFor(server: string): ServerCells {
    if (server === this.lastServer) return this.lastCells!;
    let cells = this.cellsByServer.get(server);
    if (cells === undefined) {
      cells = serverCells(this.metrics, server, this.zonesLabel, this.view);
      this.cellsByServer.set(server, cells);
    }
    this.lastServer = server;
    this.lastCells = cells;
    return cells;
  }

  /** Usable: an entry, fresh or expired for less than the serve_stale window. */
  private usable(slot: number, now: number): boolean {
    if (slot < 0) return false;
    const ttl = this.store.ttlAt(slot, now);
    return ttl > 0 || (this.staleUpToSeconds > 0 && -ttl < this.staleUpToSeconds);
  }

  /** Denial cache first, then success; counts the hit by the cache it came from. Returns the slot or -1. */
  private lookup(req: Request, bits: number, now: number, cells: ServerCells): number {
    const store = this.store;
    store.find(req, bits);
    const success = store.foundSuccess;
    const denial = store.foundDenial;
    if (this.options.preferPositive && this.usable(success, now) && store.answers(success)) {
      cells.successHits.value++;
      return success;
    }
    // A cached SERVFAIL gives way to a usable positive answer for the same question.
    if (this.usable(denial, now) && (store.kind(denial) !== ResponseType.ServerError || !this.usable(success, now))) {
      cells.denialHits.value++;
      return denial;
    }
    if (this.usable(success, now)) {
      cells.successHits.value++;
      return success;
    }
    return -1;
  }

  /** CoreDNS's `shouldPrefetch`: enough hits in the window, and little TTL left. */
  private shouldPrefetch(slot: number, now: number): boolean {
    const { prefetchAmount, prefetchDurationMs, prefetchPercentage } = this.options;
    if (prefetchAmount <= 0) return false;
    const store = this.store;
    if (store.lastHitMs[slot]! < now - prefetchDurationMs) store.hits[slot] = 1;
    else store.hits[slot]!++;
    store.lastHitMs[slot] = now;
    const threshold = Math.ceil((prefetchPercentage / 100) * store.ttlSeconds(slot));
    return store.hits[slot]! >= prefetchAmount && store.ttlAt(slot, now) <= threshold;
  }

  /** Starts a background refresh of the entry unless one is in flight or a recent one failed. */
  private refresh(req: Request, slot: number, bits: number, cells: ServerCells, mode: Mode.Prefetch | Mode.Stale, now: number): void {
    const store = this.store;
    if (store.isRefreshing(slot)) return;
    if (this.options.failureRecheckMs > 0 && now - store.failedAtMs[slot]! < this.options.failureRecheckMs) return;
    store.setRefreshing(slot, true);
    // The slot may hold another entry by the time the refresh ends (evicted, then reused).
    const generation = store.generation[slot];
    cells.prefetch.value++;
    const copy = chainCopy(req, 'tcp');
    const writer = new CachingWriter(this, copy, null, bits, cells, mode, false);
    const run = Promise.resolve()
      .then(() => nextOrFailure(this.name, this.next, copy, writer))
      .then(
        () => undefined,
        // A failing refresh leaves the entry as it is; FAILURE_RECHECK spaces out the retries.
        () => undefined,
      )
      .then(() => {
        const fresh = writer.stored;
        if (fresh < 0) {
          if (store.generation[slot] === generation) {
            store.setRefreshing(slot, false);
            store.failedAtMs[slot] = this.now();
          }
          return;
        }
        if (store.generation[slot] === generation) store.setRefreshing(slot, false);
        // The new entry kept the hits the old one earned (EntryInfo.keepHits), counted from the
        // refresh's start as CoreDNS's `Freq.Reset` does.
        if (store.generation[fresh] === writer.storedGeneration) store.lastHitMs[fresh] = now;
      });
    this.track(run);
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.then(() => this.pending.delete(work));
  }

  /** serve_stale verify: the chain first; the stale entry when it fails or is too slow. */
  private async verifyStale(req: Request, w: ResponseWriter, slot: number, bits: number, cells: ServerCells): Promise<number> {
    // Made now: while the chain works, the entry may be replaced or evicted and its slot reused.
    const stale = this.store.reply(slot, req, this.options.keepTtl ? this.store.ttlSeconds(slot) : this.options.staleResponseTtlSeconds);
    const staleSize = this.store.length(slot);
    const copy = chainCopy(req, req.transport);
    const writer = new CachingWriter(this, copy, w, bits, cells, Mode.Verify, (req.flags & Flags.AD) !== 0);
    const run = Promise.resolve()
      .then(() => nextOrFailure(this.name, this.next, copy, writer))
      .catch(() => -1);
    let rcode: number | undefined;
    const timeoutMs = this.options.verifyTimeoutMs;
    if (timeoutMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      rcode = await Promise.race([run, timeout]);
      clearTimeout(timer);
      if (rcode === undefined) {
        // Too slow: the verify goes on in the background and may still refresh the entry.
        writer.detach();
        this.track(run.then(() => undefined));
      }
    } else {
      rcode = await run;
    }
    if (writer.refreshed) return rcode ?? 0;
    cells.servedStale.value++;
    w.writeWire(stale, staleSize);
    return 0;
  }

  /**
   * Stores a reply (without its OPT, every TTL set to `ttl`); returns the slot, or -1 when a
   * `disable` zone or an encoding failure keeps it out.
   */
  put(bits: number, req: Request, msg: Packet, kind: ResponseType, ttl: number, now: number, cells: ServerCells, mode: Mode): number {
    const denial = isDenial(kind);
    const except = denial ? this.options.disableDenial : this.options.disableSuccess;
    if (except.length > 0 && matchZone(except, req.qname) !== undefined) return -1;
    let wire: Buffer;
    try {
      // The records as they are: the store writes the TTL fields, which spares a copy of each record.
      const packet: Packet = { ...msg, id: 0, flags: (msg.flags ?? 0) & ~Flags.TC, additionals: withoutOpt(msg.additionals) };
      const length = dnsPacket.encodingLength(packet);
      if (length > MAX_TCP_SIZE) return -1;
      // Into one buffer the store copies from: dns-packet's own allocates an ArrayBuffer per
      // message, which cost about 2 µs of the 6.7 it took to encode a reply to an A query.
      scratch ??= Buffer.allocUnsafeSlow(MAX_TCP_SIZE);
      dnsPacket.encode(packet, scratch, 0);
      wire = scratch.subarray(0, length);
    } catch {
      return -1;
    }
    const store = this.store;
    const tier = denial ? Tier.Denial : Tier.Success;
    const slot = store.put(tier, req, bits, wire, {
      ttlSeconds: ttl,
      nowMs: now,
      kind,
      answers: kind === ResponseType.NoError && (msg.answers?.length ?? 0) > 0,
      keepHits: mode === Mode.Prefetch || mode === Mode.Stale,
    });
    if (slot < 0) return -1;
    if (store.evicted) (denial ? cells.denialEvictions : cells.successEvictions).value++;
    // A refreshed positive answer replaces whatever negative one was kept for the question.
    if (!denial && mode !== Mode.Client) store.remove(Tier.Denial, req, bits);
    cells.successEntries.value = store.count(Tier.Success);
    cells.denialEntries.value = store.count(Tier.Denial);
    return slot;
  }

  /** The generation of a slot (see {@link EntryStore.generation}). */
  generationOf(slot: number): number {
    return this.store.generation[slot]!;
  }

  /** The reply just stored in `slot` for the client of `req`, with `flags` (EntryStore.storedReply). */
  storedReply(slot: number, req: Request, flags: number): Buffer {
    return this.store.storedReply(slot, req, flags);
  }

  /** Bytes of the reply stored in `slot`, without OPT: what a recorder counts. */
  storedLength(slot: number): number {
    return this.store.length(slot);
  }

  /** The stored duration of a reply of this kind, in milliseconds (CoreDNS's `computeTTL`). */
  durationMs(msg: Packet, kind: ResponseType): number {
    if (kind === ResponseType.ServerError) return this.options.servfailMs;
    const tier = kind === ResponseType.NameError || kind === ResponseType.NoData ? this.options.denial : this.options.success;
    return clampTtl(minimalTtl(msg, kind), tier.minTtlSeconds, tier.maxTtlSeconds) * 1000;
  }
}

/**
 * The writer a miss or a refresh goes down the chain with (CoreDNS's cache `ResponseWriter`):
 * it classifies the reply, sets every TTL to the stored duration, stores it when it may, and
 * passes it on to the client when there is one.
 */
class CachingWriter implements ResponseWriter {
  /** The slot of the entry this reply became, -1 until it is stored, and that entry's generation. */
  stored = -1;
  storedGeneration = 0;
  /** serve_stale verify: true once a good reply went to the client. */
  refreshed = false;
  private detached = false;

  constructor(
    private readonly cache: Cache,
    private readonly req: Request,
    private readonly inner: ResponseWriter | null,
    /** The key's DO and CD bits ({@link keyBits}). */
    private readonly bits: number,
    private readonly cells: ServerCells,
    private readonly mode: Mode,
    /** Whether the client set AD: the copy sent down the chain has AD forced on. */
    private readonly clientAd: boolean,
  ) {}

  /** serve_stale verify gave up waiting: the stale answer went out, so store only. */
  detach(): void {
    this.detached = true;
  }

  write(msg: Packet): number {
    return this.handle(msg);
  }

  /** Passes TCP backpressure through, so a zone transfer below the cache still waits for the client. */
  drained(): Promise<void> {
    return (this.mode === Mode.Client && this.inner?.drained?.()) || Promise.resolve();
  }

  writeWire(wire: Buffer, size?: number): number {
    let msg: Packet;
    try {
      msg = dnsPacket.decode(wire);
    } catch {
      // Not a message we can read, so not one we cache; the client still gets it, counted as written.
      return this.mode === Mode.Client && this.inner !== null ? this.inner.writeWire(wire, size) : 0;
    }
    return this.handle(msg);
  }

  private handle(msg: Packet): number {
    const { cache, req } = this;
    const now = cache.now();
    const kind = classify(msg, req.qname, req.qtype, req.dnssecOk, now);
    const truncated = ((msg.flags ?? 0) & Flags.TC) !== 0;
    const cacheable = !truncated && kind !== ResponseType.OtherError && kind !== ResponseType.Meta && kind !== ResponseType.Update;
    const durationMs = cache.durationMs(msg, kind);
    const ttl = Math.trunc(durationMs / 1000);
    const matches = replyMatches(msg, req);
    const rcode = packetRcode(msg);
    // Refreshes of stale entries accept only a good answer: a failure keeps the stale one.
    const acceptable = this.mode === Mode.Client || this.mode === Mode.Prefetch || (!truncated && matches && (rcode === Rcode.NOERROR || rcode === Rcode.NXDOMAIN));
    let slot = -1;
    if (cacheable && durationMs > 0 && acceptable) {
      if (matches) {
        slot = cache.put(this.bits, req, msg, kind, ttl, now, this.cells, this.mode);
        if (slot >= 0) {
          this.stored = slot;
          this.storedGeneration = cache.generationOf(slot);
        }
      } else {
        this.cells.drops.value++;
      }
    }
    if (this.inner === null || this.detached || this.mode === Mode.Prefetch || this.mode === Mode.Stale) return 0;
    if (this.mode === Mode.Verify) {
      if (!acceptable) return 0;
      this.refreshed = true;
    }
    let flags = msg.flags ?? 0;
    // RFC 6840 §5.7-5.8: AD only for clients that asked for DNSSEC or set AD themselves.
    if (!req.dnssecOk && !this.clientAd) flags &= ~Flags.AD;
    // A reply just stored goes out as stored: the bytes the listener would encode from the
    // message (no OPT, every TTL the stored duration), the OPT the scrub adds, the header's
    // flags. So a miss encodes the message once, not once for the cache and again to send.
    if (slot >= 0 && this.mode === Mode.Client) return this.inner.writeWire(cache.storedReply(slot, req, flags), cache.storedLength(slot));
    return this.inner.write({
      ...msg,
      flags,
      answers: withTtl(msg.answers, ttl),
      authorities: withTtl(msg.authorities, ttl),
      additionals: withTtl(msg.additionals, ttl),
    });
  }
}
