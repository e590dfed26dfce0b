/** Setup of *loop* (CoreDNS's `plugin/loop/setup.go`): parse, then probe once the server starts. */
import { errOnce, Servers } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { splitHostPort } from '@foghorn/core/wire';
import { Loop, probeName, startProbe } from './loop.js';

/** What `loop` configures: the probe zone (the block's first key) and its random probe name. */
export interface LoopOptions {
  readonly zone: string;
  readonly qname: string;
}

/** Parses `loop` (no arguments, once per block). The probe zone is the block's first key. */
export function parseLoop(c: Controller): LoopOptions {
  let seen = 0;
  while (c.next()) {
    if (seen++ > 0) throw errOnce(c);
    // CoreDNS's dispenser reads a `{` as an argument; ours enters it, so a block is refused here.
    if (c.nextArg() || c.nextBlock()) throw c.argError();
  }
  // Keys are normalised already; CoreDNS falls back to the root for a key it cannot parse,
  // which a Foghorn block cannot have.
  const zone = c.keys[0]?.zone ?? '.';
  // Under -workers every worker probes with the same name: any of them may receive the probe.
  return { zone, qname: probeName(zone, c.workers?.id) };
}

/** Parses `loop`, adds the handler and probes the server once it starts. */
export function setup(c: Controller): void {
  const { zone, qname } = parseLoop(c);
  const loop = new Loop(zone, qname, (message) => c.fatal(message));
  c.addHandler((next) => {
    loop.next = next;
    return loop;
  });
  let stop: (() => void) | undefined;
  c.onStartup(() => {
    // The first listener of the block: its bind host ('' for every address) and port.
    const label = c.use(Servers)[0] ?? '';
    const { host, port } = splitHostPort(label.replace(/^dns:\/\//, ''));
    // A port-0 listener gets its port from the kernel; there is nothing known to probe.
    if (port === '0' || port === '') return loop.disable();
    stop = startProbe(loop, { host, port: Number(port) });
  });
  c.onShutdown(() => stop?.());
}
