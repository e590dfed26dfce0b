/**
 * bufsize: lowers the EDNS0 UDP buffer size of queries to a maximum, as CoreDNS's *bufsize*, so
 * that replies, and the queries *forward* sends upstream, avoid IP fragmentation.
 * @module
 */
import { definePlugin, nextOrFailure } from '@foghorn/core';
import type { Controller, Handler, HandlerResult, PluginDefinition, Request, ResponseWriter } from '@foghorn/core';

/** The default: the size DNS Flag Day 2020 recommends (dnsflagday.net/2020). */
export const DEFAULT_BUFSIZE = 1232;

/**
 * Parses `bufsize [SIZE]` as CoreDNS's `plugin/bufsize/setup.go`: SIZE is an integer in
 * 512..4096 (RFC 6891), anything else is an argument error. Only the first `bufsize` line of a
 * block is read.
 */
export function parseBufsize(c: Controller): number {
  if (!c.next()) throw c.argError();
  const args = c.remainingArgs();
  if (args.length === 0) return DEFAULT_BUFSIZE;
  // Go's strconv.Atoi syntax: an optional sign and decimal digits.
  if (args.length > 1 || !/^[+-]?\d+$/.test(args[0]!)) throw c.argError();
  const size = Number(args[0]);
  if (size < 512 || size > 4096) throw c.argError();
  return size;
}

/** Lowers the query's advertised UDP size, then passes it on. */
export class Bufsize implements Handler {
  readonly name = 'bufsize';

  constructor(
    private readonly size: number,
    private readonly next: Handler | null,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    req.limitUdpSize(this.size);
    return nextOrFailure(this.name, this.next, req, w);
  }
}

/** Parses the directive and adds the handler. */
export function setup(c: Controller): void {
  const size = parseBufsize(c);
  c.addHandler((next) => new Bufsize(size, next));
}

const plugin: PluginDefinition = definePlugin({ name: 'bufsize', setup });
export default plugin;
