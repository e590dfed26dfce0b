/**
 * The cache of built answers, one per query type the table answers (A, AAAA, SRV), looked up
 * by query type, so a type the table does not answer is refused instead of landing in another
 * type's cache.
 */
import { TYPE_A, TYPE_AAAA, TYPE_SRV } from '@foghorn/core';
import type { Answer, Entry, Stage } from './answer.js';
import type { BalancerState } from './swrr.js';
import type { Service } from './store.js';

/**
 * Cached answers per query type (CoreDNS's cache plugin keeps 9,984 per kind by default). An
 * entry costs a few hundred bytes, a round-robin one about 1 KB with its per-cluster bodies,
 * so the cache stays within about 10-20 MB however many services there are. Past it, the
 * oldest entries make room; a miss builds its answer again. A build costs about 14 µs, where a
 * hit costs under 1 (bench/lighthouse-hit.ts): a first pass through the lighthouse benchmark's
 * 10,000 names in process, with the JIT warm and the collections of the new entries included;
 * 42 µs with the JIT cold, as right after start-up. So a server's first second of many distinct
 * names is its slowest.
 */
export const cacheCapacity = 10_000;

/**
 * A service as the table sees it. Cached answers point at the view they were built from; a
 * change of the service marks the view stale and installs a new one.
 */
export interface ServiceView {
  readonly key: string;
  readonly service: Service;
  valid: boolean;
}

/**
 * A cached entry as the hit path reads it: everything a hit needs sits in this one object, since
 * with thousands of names cycling each hit starts cache-cold and every further object is another
 * dependent memory load. `epoch` says the view was valid when the table's epoch was this value
 * (see AnswerTable.lookup), so a hit need not read the view at all until some service changes. A
 * balanced entry's first stage is copied in (the balancer state stays shared: it belongs to the
 * service and family, not to this name).
 */
export class Cached implements Stage {
  /** The entry when it is a complete answer; null when the balancer answers. */
  readonly answer: Answer | null;
  readonly state: BalancerState;
  readonly answers: readonly (Answer | null)[];
  readonly next: Entry;

  constructor(
    entry: Entry,
    readonly view: ServiceView,
    /** The table's epoch when `view` was last seen valid. */
    public epoch: number,
  ) {
    if (entry.kind === 'answer') {
      this.answer = entry;
      this.state = noState;
      this.answers = noAnswers;
      this.next = entry;
    } else {
      this.answer = null;
      this.state = entry.state;
      this.answers = entry.answers;
      this.next = entry.next;
    }
  }
}

const noState: BalancerState = [];
const noAnswers: readonly (Answer | null)[] = [];

/** The record set a name is enumerated into (see names.ts). */
export type MapName = 'a' | 'aaaa' | 'srv';

/**
 * The cached entries of one query type. Eviction is first in, first out through a ring of keys
 * (a Map's own iteration order would walk every deleted slot at its front on each eviction).
 */
export class AnswerCache {
  readonly map = new Map<string, Cached>();
  private ring: string[] = [];
  private head = 0;

  constructor(
    /** Which enumerated names this cache holds. */
    readonly mapName: MapName,
    private readonly capacity: number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  set(name: string, cached: Cached): void {
    if (this.map.has(name)) {
      // A stale entry replaced: the name keeps its place in the ring.
      this.map.set(name, cached);
      return;
    }
    if (this.ring.length < this.capacity) {
      this.ring.push(name);
    } else {
      this.map.delete(this.ring[this.head]!);
      this.ring[this.head] = name;
      this.head = (this.head + 1) % this.capacity;
    }
    this.map.set(name, cached);
  }

  clear(): void {
    this.map.clear();
    this.ring = [];
    this.head = 0;
  }
}

/** One {@link AnswerCache} per answered query type, found by qtype. */
export class AnswerCaches {
  private readonly a: AnswerCache;
  private readonly aaaa: AnswerCache;
  private readonly srv: AnswerCache;
  private readonly all: readonly AnswerCache[];

  constructor(capacity: number) {
    this.a = new AnswerCache('a', capacity);
    this.aaaa = new AnswerCache('aaaa', capacity);
    this.srv = new AnswerCache('srv', capacity);
    this.all = [this.a, this.aaaa, this.srv];
  }

  /** The cache for `qtype`, or undefined for a type the table does not answer from a cache. */
  of(qtype: number): AnswerCache | undefined {
    // A switch over three numbers rather than a map lookup: this runs on every query.
    switch (qtype) {
      case TYPE_A:
        return this.a;
      case TYPE_AAAA:
        return this.aaaa;
      case TYPE_SRV:
        return this.srv;
      default:
        return undefined;
    }
  }

  /** Entries cached, stale ones included until evicted. */
  get size(): number {
    let size = 0;
    for (const cache of this.all) size += cache.size;
    return size;
  }

  clear(): void {
    for (const cache of this.all) cache.clear();
  }
}
