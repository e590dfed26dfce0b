/**
 * The entry store on its own: what it keeps (walkable replies only), how a hit is patched (ID,
 * flags, question case, TTLs counting down, OPT), the key (DO and CD apart), and CoreDNS's
 * capacity: 256 shards, a full shard evicting one of its own entries at random.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { Request } from '@foghorn/core';
import { ResponseType } from '@foghorn/core/wire';
import { makeQuery } from '@foghorn/testkit';
import type { QueryOptions } from '@foghorn/testkit';
import { effectiveCapacity, EntryStore, INLINE_BYTES, keyBits, shardOf, Tier } from '../src/store.js';
import type { EntryInfo } from '../src/store.js';

const info: EntryInfo = { ttlSeconds: 30, nowMs: 0, kind: ResponseType.NoError, answers: true, keepHits: false };

function replyWire(name: string, answers: Answer[], flags = 0): Buffer {
  return dnsPacket.encode({ type: 'response', id: 0, flags, questions: [{ type: 'A', name, class: 'IN' }], answers });
}
const a = (name: string, data: string, ttl = 30): Answer => ({ type: 'A', name, ttl, data });

function request(name: string, options: QueryOptions = {}, type: dnsPacket.RecordType = 'A'): Request {
  return Request.fromWire(makeQuery(name, type, { id: 7, ...options }), 'udp', '127.0.0.1', 5353);
}

/** A reproducible [0, 1) sequence (mulberry32), so eviction counts do not vary between runs. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stores an A answer for `name` in `tier`; returns the slot. */
function putName(store: EntryStore, name: string, tier = Tier.Success, bits = 0, entry: Partial<EntryInfo> = {}): number {
  return store.put(tier, request(name), bits, replyWire(name, [a(name, '192.0.2.1')]), { ...info, ...entry });
}

/** The slot {@link EntryStore.find} finds in `tier` for an A query for `name`. */
function found(store: EntryStore, name: string, bits = 0, tier = Tier.Success, options: QueryOptions = {}, type: dnsPacket.RecordType = 'A'): number {
  store.find(request(name, options, type), bits);
  return tier === Tier.Success ? store.foundSuccess : store.foundDenial;
}

test('a reply without a question, or whose name or record runs off the end, is not stored', () => {
  const store = new EntryStore(1024, 1024);
  const req = request('a.example');
  assert.equal(store.put(Tier.Success, req, 0, dnsPacket.encode({ type: 'response', id: 0, questions: [], answers: [] }), info), -1);
  const whole = replyWire('a.example', [a('a.example', '192.0.2.1')]);
  // Every cut, from a header alone to one byte short, leaves something that cannot be walked.
  for (let length = 12; length < whole.length; length++) {
    assert.equal(store.put(Tier.Success, req, 0, whole.subarray(0, length), info), -1, `cut at ${length}`);
  }
  assert.equal(store.count(Tier.Success), 0);
  assert.ok(store.put(Tier.Success, req, 0, whole, info) >= 0, 'the whole reply is stored');
});

test("a reply whose question is not the query's name written alike is not stored", () => {
  const store = new EntryStore(1024, 1024);
  assert.equal(store.put(Tier.Success, request('a.example'), 0, replyWire('b.example', [a('b.example', '192.0.2.1')]), info), -1);
  // The same name, compressed: a hit could not copy the query's name over it.
  const compressed = Buffer.from([...replyWire('a.example', []).subarray(0, 12), 0xc0, 0x0c, 0, 1, 0, 1]);
  compressed.writeUInt16BE(1, 4);
  assert.equal(store.put(Tier.Success, request('a.example'), 0, compressed, info), -1);
  assert.equal(store.count(Tier.Success), 0);
  assert.ok(store.put(Tier.Success, request('a.example'), 0, replyWire('A.EXAMPLE', [a('a.example', '192.0.2.1')]), info) >= 0, 'the name in other case is the same');
});

test('a hit comes back with the query ID, AA, the client question case and the TTL asked for', () => {
  const store = new EntryStore(1024, 1024);
  const slot = store.put(Tier.Success, request('a.example'), 0, replyWire('A.example', [a('A.example', '192.0.2.1')], dnsPacket.RECURSION_AVAILABLE), info);
  assert.equal(found(store, 'a.EXAMPLE'), slot, 'found in any case');
  const reply = dnsPacket.decode(store.reply(slot, request('a.EXAMPLE'), 12));
  assert.equal(reply.id, 7);
  assert.equal(reply.type, 'response');
  assert.equal(reply.flags! & 0x0580, 0x0580, 'AA, RD and RA');
  assert.equal(reply.questions?.[0]?.name, 'a.EXAMPLE', "the client's case");
  assert.deepEqual(reply.answers?.map((rr) => [rr.name, (rr as { ttl: number }).ttl, (rr as { data: unknown }).data]), [['A.example', 12, '192.0.2.1']], 'the owner name as first stored');
});

test('the TTL counts down in whole seconds and every record is rewritten, in a block and in a long reply', () => {
  const store = new EntryStore(1024, 1024);
  const short = putName(store, 'short.example', Tier.Success, 0, { nowMs: 1_000_500 });
  // Enough records to need more than one block.
  const records = Array.from({ length: 12 }, (_, i) => a('long.example', `192.0.2.${i + 1}`));
  const wire = replyWire('long.example', records);
  assert.ok(wire.length > INLINE_BYTES);
  const long = store.put(Tier.Success, request('long.example'), 0, wire, { ...info, nowMs: 1_000_500 });
  for (const [slot, name, count] of [[short, 'short.example', 1], [long, 'long.example', 12]] as const) {
    assert.equal(store.ttlAt(slot, 1_000_500), 30);
    assert.equal(store.ttlAt(slot, 1_001_499), 30, 'less than a second later');
    assert.equal(store.ttlAt(slot, 1_001_500), 29);
    assert.equal(store.ttlAt(slot, 1_031_500), -1, 'expired');
    for (const ttl of [29, 3, 0, 29]) {
      const reply = dnsPacket.decode(store.reply(slot, request(name), ttl));
      assert.deepEqual(reply.answers?.map((rr) => (rr as { ttl: number }).ttl), Array(count).fill(ttl));
    }
  }
});

test('an EDNS client gets an OPT with its size and DO bit; the recorded length stays without it', () => {
  const store = new EntryStore(1024, 1024);
  const slot = putName(store, 'a.example', Tier.Success, 2);
  const wire = store.reply(slot, request('a.example', { udpSize: 1400, dnssecOk: true }), 30);
  assert.equal(wire.length, store.length(slot) + 11);
  const opt = dnsPacket.decode(wire).additionals?.find((rr) => rr.type === 'OPT') as { udpPayloadSize: number; flags: number } | undefined;
  assert.equal(opt?.udpPayloadSize, 1400);
  assert.equal(opt?.flags, dnsPacket.DNSSEC_OK);
  assert.equal(dnsPacket.decode(store.reply(slot, request('a.example'), 30)).additionals?.length, 0, 'no OPT for a client without one');
});

test('DO and CD are part of the key, and so are type, class and the cache', () => {
  const store = new EntryStore(1024, 1024);
  assert.equal(keyBits(request('a.example', { dnssecOk: true })), 2);
  assert.equal(keyBits(request('a.example', { flags: dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED })), 1);
  const slots = [0, 1, 2, 3].map((bits) => putName(store, 'a.example', Tier.Success, bits));
  const denial = putName(store, 'a.example', Tier.Denial, 0);
  assert.equal(new Set([...slots, denial]).size, 5);
  for (const [bits, slot] of slots.entries()) {
    assert.equal(found(store, 'a.example', bits), slot);
    assert.equal(found(store, 'a.example', bits, Tier.Denial), bits === 0 ? denial : -1);
  }
  assert.equal(found(store, 'a.example', 0, Tier.Success, {}, 'AAAA'), -1, 'another type');
  assert.equal(found(store, 'a.example', 0, Tier.Success, { class: 'CH' }), -1, 'another class');
  assert.equal(found(store, 'b.example'), -1, 'another name');
  assert.equal(found(store, 'a.example.example'), -1, 'a longer name');
});

test('storing the same question again replaces the entry in place, and removing frees its slot', () => {
  const store = new EntryStore(1024, 1024);
  const first = putName(store, 'a.example', Tier.Success, 0, { nowMs: 0 });
  const others = [1, 2].map((bits) => putName(store, 'a.example', Tier.Success, bits));
  const generation = store.generation[first]!;
  assert.equal(putName(store, 'a.example', Tier.Success, 0, { nowMs: 5_000 }), first);
  assert.notEqual(store.generation[first], generation, 'a refresh holding the old generation sees the change');
  assert.equal(store.ttlAt(first, 5_000), 30);
  assert.equal(store.count(Tier.Success), 3);
  store.remove(Tier.Success, request('a.example'), 1);
  assert.equal(found(store, 'a.example', 1), -1);
  for (const [bits, slot] of [[0, first], [2, others[1]]] as const) assert.equal(found(store, 'a.example', bits), slot);
  assert.equal(store.count(Tier.Success), 2);
  assert.equal(putName(store, 'b.example'), others[0], 'the freed slot is used again');
});

test('a refresh keeps the prefetch hit count of the entry it replaces; a miss starts from zero', () => {
  const store = new EntryStore(1024, 1024);
  const slot = putName(store, 'a.example');
  store.hits[slot] = 9;
  store.lastHitMs[slot] = 1234;
  putName(store, 'a.example', Tier.Success, 0, { keepHits: true });
  assert.equal(store.hits[slot], 9);
  assert.equal(store.lastHitMs[slot], 1234);
  putName(store, 'a.example');
  assert.equal(store.hits[slot], 0);
});

test('a cache holds 256 shards of max(⌊capacity/256⌋, 4) entries, and a full shard evicts only its own', () => {
  assert.equal(effectiveCapacity(10_000), 9984);
  const store = new EntryStore(1, 1, () => 0.999);
  const shard = shardOf('n0.example.', 1, 0);
  const names: string[] = [];
  for (let i = 0; names.length < 6; i++) if (shardOf(`n${i}.example.`, 1, 0) === shard) names.push(`n${i}.example`);
  const slots = names.slice(0, 4).map((name) => putName(store, name));
  assert.equal(store.evicted, false);
  // random() = 0.999 picks the last of the shard's four members.
  const fifth = putName(store, names[4]!);
  assert.equal(store.evicted, true);
  assert.equal(fifth, slots[3], 'the victim slot holds the new entry');
  assert.equal(found(store, names[3]!), -1, 'the victim is gone');
  for (const name of [...names.slice(0, 3), names[4]!]) assert.ok(found(store, name) >= 0);
  assert.equal(store.count(Tier.Success), 4);
  // Every other shard still has room, and the denial cache has its own shards.
  const elsewhere = Array.from({ length: 50 }, (_, i) => `o${i}.example`).find((name) => shardOf(`${name}.`, 1, 0) !== shard)!;
  putName(store, elsewhere);
  assert.equal(store.evicted, false);
  putName(store, names[5]!, Tier.Denial);
  assert.equal(store.evicted, false);
  assert.deepEqual([store.count(Tier.Success), store.count(Tier.Denial)], [5, 1]);
});

test('a full cache never holds more than its capacity, whatever the names', () => {
  const store = new EntryStore(2048, 1024, seeded(1));
  let evictions = 0;
  for (let i = 0; i < 20_000; i++) {
    putName(store, `n${i}.example`);
    if (store.evicted) evictions++;
  }
  assert.ok(store.count(Tier.Success) <= effectiveCapacity(2048));
  assert.equal(store.count(Tier.Success) + evictions, 20_000, 'each entry stored is held or was evicted');
});

test('a working set just above the capacity is mostly hits, where least-recently-used eviction would miss every time', () => {
  // The benchmark's job (bench/scenario-cache-file.ts): 10,000 names cycled over, 9,984 entries.
  const store = new EntryStore(10_000, 10_000, seeded(7));
  const names = Array.from({ length: 10_000 }, (_, i) => `h${i}.example.org`);
  let misses = 0;
  for (let round = 0; round < 3; round++) {
    misses = 0;
    for (const name of names) {
      if (found(store, name) < 0) {
        misses++;
        putName(store, name);
      }
    }
  }
  assert.ok(misses < 1500, `${misses} misses in a round`);
  // The shards are CoreDNS's: CoreDNS 1.12.3 held 9,504 of these names in the same job.
  assert.equal(store.count(Tier.Success), 9504);
});

test("the shard is the low byte of CoreDNS's FNV-1 64 of DO, CD, type and name", () => {
  // The whole 64-bit hash, as Go's hash/fnv New64 computes it, for reference.
  const fnv1 = (bytes: number[]): bigint => bytes.reduce((h, b) => ((h * 0x100000001b3n) & 0xffffffffffffffffn) ^ BigInt(b), 0xcbf29ce484222325n);
  for (const [name, type, bits] of [['example.org.', 1, 0], ['svc1.ns1.svc.cluster.local.', 28, 0], ['a.example.', 1, 2], ['a.example.', 1, 1], ['a.example.', 65535, 3], ['.', 2, 0]] as const) {
    const key = [bits & 2 ? 0x31 : 0x30, bits & 1 ? 0x31 : 0x30, type >> 8, type & 0xff, ...Buffer.from(name, 'latin1')];
    assert.equal(shardOf(name, type, bits), Number(fnv1(key) & 0xffn), `${name} ${type} ${bits}`);
  }
});

test('a large reply replaced by a short one is served from the block, and the other way round', () => {
  const store = new EntryStore(1024, 1024);
  const records = (n: number): Answer[] => Array.from({ length: n }, (_, i) => a('x.example', `192.0.2.${i + 1}`));
  for (const n of [12, 1, 12, 2]) {
    const slot = store.put(Tier.Success, request('x.example'), 0, replyWire('x.example', records(n)), info);
    const reply: Packet = dnsPacket.decode(store.reply(slot, request('x.example'), 30));
    assert.deepEqual(reply.answers?.map((rr) => (rr as { data: unknown }).data), records(n).map((rr) => (rr as { data: unknown }).data));
  }
});

test('after any mix of stores, replacements, evictions and removals, every entry is found and holds its last reply', () => {
  // 1,024 entries a cache (4 a shard) for 1,200 keys: the table's runs are shifted back on every
  // eviction and removal; a key must never be lost from them, found twice or found stale.
  const store = new EntryStore(1, 1, seeded(3));
  const random = seeded(11);
  const types = ['A', 'AAAA'] as const;
  const last = new Map<string, string>();
  const keys: Array<[string, (typeof types)[number], number, Tier]> = [];
  for (let n = 0; n < 150; n++) for (const type of types) for (const bits of [0, 2]) for (const tier of [Tier.Success, Tier.Denial]) keys.push([`n${n}.example`, type, bits, tier]);
  const options = (bits: number): QueryOptions => (bits === 2 ? { dnssecOk: true } : {});
  for (let op = 1; op <= 20_000; op++) {
    const [name, type, bits, tier] = keys[Math.floor(random() * keys.length)]!;
    const id = `${name} ${type} ${bits} ${tier}`;
    if (random() < 0.75) {
      const data = type === 'A' ? `192.0.2.${op % 250}` : `2001:db8::${(op % 65535).toString(16)}`;
      const wire = dnsPacket.encode({ type: 'response', id: 0, questions: [{ type, name, class: 'IN' }], answers: [{ type, name, ttl: 30, data }] });
      assert.ok(store.put(tier, request(name, options(bits), type), bits, wire, info) >= 0);
      last.set(id, data);
    } else {
      store.remove(tier, request(name, options(bits), type), bits);
      last.delete(id);
    }
    if (op % 1000 !== 0) continue;
    const held = [0, 0];
    for (const [n, t, b, tr] of keys) {
      const slot = found(store, n, b, tr, options(b), t);
      if (slot < 0) continue;
      held[tr]!++;
      const answer = dnsPacket.decode(store.reply(slot, request(n, options(b), t), 30)).answers?.[0] as { name: string; type: string; data: string } | undefined;
      assert.deepEqual([answer?.name, answer?.type, answer?.data], [n, t, last.get(`${n} ${t} ${b} ${tr}`)], `${n} ${t} ${b} ${tr} after ${op}`);
    }
    assert.deepEqual(held, [store.count(Tier.Success), store.count(Tier.Denial)], `after ${op}`);
  }
});
