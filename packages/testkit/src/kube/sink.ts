/**
 * A sink that records what a watch delivered, in order, and keeps the state those calls imply,
 * so tests can assert both the sequence (no spurious removes) and the end result.
 */

/** The object shape a sink receives (structurally the lighthouse `KubeObject`). */
export interface SinkObject {
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly resourceVersion?: string };
  readonly [field: string]: unknown;
}

/** One sink call; objects are named `namespace/name`. */
export type SinkCall =
  | { readonly op: 'replace'; readonly names: readonly string[] }
  | { readonly op: 'upsert' | 'remove'; readonly name: string };

export function objectName(obj: SinkObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

export class RecordingSink {
  readonly calls: SinkCall[] = [];
  readonly state = new Map<string, SinkObject>();

  replace(items: readonly SinkObject[]): void {
    this.state.clear();
    for (const item of items) this.state.set(objectName(item), item);
    this.calls.push({ op: 'replace', names: items.map(objectName).sort() });
  }

  upsert(item: SinkObject): void {
    this.state.set(objectName(item), item);
    this.calls.push({ op: 'upsert', name: objectName(item) });
  }

  remove(item: SinkObject): void {
    this.state.delete(objectName(item));
    this.calls.push({ op: 'remove', name: objectName(item) });
  }

  /** Current object names, sorted. */
  names(): string[] {
    return [...this.state.keys()].sort();
  }
}
