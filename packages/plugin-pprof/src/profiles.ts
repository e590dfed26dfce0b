/**
 * Profiles of this Node process in pprof's format (`perftools.profiles.Profile`, gzip'd), made
 * from V8's own profilers through `node:inspector`: the CPU profile from the sampling
 * `Profiler`, the heap profile from the sampling `HeapProfiler`. The encoding is the
 * `pprof-format` package's (pure JavaScript, no dependencies, the encoder of Datadog's and
 * Google's Node profilers): the pprof schema has string tables, functions, locations, lines and
 * mappings, and a well-kept encoder beats writing them by hand. `@datadog/pprof` would add a
 * native module to an image that has none.
 */
import { Session } from 'node:inspector';
import type { Profiler } from 'node:inspector';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Function as PprofFunction, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';

const gzipAsync = promisify(gzip);

/** CPU sampling period: 100 Hz, Go's `runtime/pprof` rate. */
export const CPU_INTERVAL_US = 10_000;
/** Heap sampling: one sample per 512 KiB allocated on average, Go's `MemProfileRate`. */
export const HEAP_INTERVAL_BYTES = 512 * 1024;

/** A frame as both V8 profilers describe it. */
interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

/** Builds a profile's functions and locations, one location per profiler node. */
class ProfileBuilder {
  readonly strings = new StringTable();
  readonly functions: PprofFunction[] = [];
  readonly locations: Location[] = [];
  private readonly functionIds = new Map<string, number>();

  /** A location for `frame` (lines are 1-based in pprof, 0-based in V8). */
  location(frame: CallFrame): number {
    const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
    const key = `${name}\0${frame.url}\0${frame.lineNumber}`;
    let functionId = this.functionIds.get(key);
    if (functionId === undefined) {
      functionId = this.functions.length + 1;
      const nameId = this.strings.dedup(name);
      this.functions.push(new PprofFunction({ id: functionId, name: nameId, systemName: nameId, filename: this.strings.dedup(frame.url), startLine: frame.lineNumber + 1 }));
      this.functionIds.set(key, functionId);
    }
    const id = this.locations.length + 1;
    this.locations.push(new Location({ id, line: [{ functionId, line: frame.lineNumber + 1, column: frame.columnNumber + 1 }] }));
    return id;
  }

  valueType(type: string, unit: string): ValueType {
    return new ValueType({ type: this.strings.dedup(type), unit: this.strings.dedup(unit) });
  }
}

/** The inspector session of this process, opened on first use. */
let session: Session | undefined;
function inspector(): Session {
  if (session === undefined) {
    session = new Session();
    session.connect();
  }
  return session;
}

function post<T>(method: string, params?: object): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    inspector().post(method, params ?? {}, (error: Error | null, result: unknown) => (error ? reject(error) : resolve(result as T)));
  });
}

let cpuBusy = false;

/** Go's words when a second CPU profile is asked for while one runs. */
export class CpuProfileBusyError extends Error {}

/** Samples the CPU for `seconds` and returns the gzip'd pprof profile. */
export async function cpuProfile(seconds: number): Promise<Buffer> {
  if (cpuBusy) throw new CpuProfileBusyError('Could not enable CPU profiling: cpu profiling already in use');
  cpuBusy = true;
  try {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: CPU_INTERVAL_US });
    const startNanos = BigInt(Date.now()) * 1_000_000n;
    await post('Profiler.start');
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const { profile } = await post<Profiler.StopReturnType>('Profiler.stop');
    await post('Profiler.disable');
    return await gzipAsync(cpuToPprof(profile, startNanos).encode());
  } finally {
    cpuBusy = false;
  }
}

/** V8's CPU profile as pprof: samples/count and cpu/nanoseconds per call stack. */
export function cpuToPprof(profile: Profiler.Profile, startNanos: bigint): Profile {
  const builder = new ProfileBuilder();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const locationOf = new Map<number, number>();
  const periodNanos = CPU_INTERVAL_US * 1000;
  const samples: Sample[] = [];
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const stack: number[] = [];
    // Leaf first, as pprof wants; V8's "(root)" node is left out.
    for (let id: number | undefined = node.id; id !== undefined && parents.has(id); id = parents.get(id)) {
      let location = locationOf.get(id);
      if (location === undefined) {
        location = builder.location(byId.get(id)!.callFrame);
        locationOf.set(id, location);
      }
      stack.push(location);
    }
    samples.push(new Sample({ locationId: stack, value: [hits, hits * periodNanos] }));
  }
  return new Profile({
    sampleType: [builder.valueType('samples', 'count'), builder.valueType('cpu', 'nanoseconds')],
    sample: samples,
    location: builder.locations,
    function: builder.functions,
    stringTable: builder.strings,
    timeNanos: startNanos,
    durationNanos: BigInt(Math.round((profile.endTime - profile.startTime) * 1000)),
    periodType: builder.valueType('cpu', 'nanoseconds'),
    period: periodNanos,
  });
}

/** V8's SamplingHeapProfile (node:inspector's typings predate its `id` and `samples`). */
export interface HeapNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}
export interface HeapSamples {
  readonly head: HeapNode;
  readonly samples: readonly { readonly size: number; readonly nodeId: number; readonly ordinal: number }[];
}

let heapSampling = 0;

/** Starts V8's sampling heap profiler (once per process; each caller stops it once). */
export async function startHeapSampling(): Promise<void> {
  if (heapSampling++ > 0) return;
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: HEAP_INTERVAL_BYTES });
}

export async function stopHeapSampling(): Promise<void> {
  if (heapSampling === 0 || --heapSampling > 0) return;
  await post('HeapProfiler.stopSampling');
  await post('HeapProfiler.disable');
}

/** The live objects sampled so far as a gzip'd pprof profile; `gc` collects garbage first. */
export async function heapProfile(gc: boolean): Promise<Buffer> {
  if (heapSampling === 0) throw new Error('heap sampling is not running');
  if (gc) await post('HeapProfiler.collectGarbage');
  const { profile } = await post<{ profile: HeapSamples }>('HeapProfiler.getSamplingProfile');
  return gzipAsync(heapToPprof(profile, BigInt(Date.now()) * 1_000_000n).encode());
}

/**
 * V8's sampling heap profile as pprof: inuse_objects/count and inuse_space/bytes per call stack.
 * A sample stands for more than itself: an object of `size` bytes is sampled with probability
 * 1 - exp(-size/interval), so each counts 1/that (Go's `scaleHeapSample`).
 */
export function heapToPprof(profile: HeapSamples, timeNanos: bigint): Profile {
  const builder = new ProfileBuilder();
  const stacks = new Map<number, number[]>();
  const walk = (node: HeapNode, parent: readonly number[]): void => {
    // The profile's head is a synthetic "(root)" with no frame of its own.
    const stack = node === profile.head ? [] : [builder.location(node.callFrame), ...parent];
    stacks.set(node.id, stack);
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  const totals = new Map<number, { objects: number; bytes: number }>();
  for (const sample of profile.samples) {
    const scale = 1 / (1 - Math.exp(-sample.size / HEAP_INTERVAL_BYTES));
    const total = totals.get(sample.nodeId) ?? { objects: 0, bytes: 0 };
    total.objects += scale;
    total.bytes += sample.size * scale;
    totals.set(sample.nodeId, total);
  }
  const samples = [...totals].map(([nodeId, total]) => new Sample({ locationId: stacks.get(nodeId) ?? [], value: [Math.round(total.objects), Math.round(total.bytes)] }));
  return new Profile({
    sampleType: [builder.valueType('inuse_objects', 'count'), builder.valueType('inuse_space', 'bytes')],
    sample: samples,
    location: builder.locations,
    function: builder.functions,
    stringTable: builder.strings,
    timeNanos,
    periodType: builder.valueType('space', 'bytes'),
    period: HEAP_INTERVAL_BYTES,
  });
}
