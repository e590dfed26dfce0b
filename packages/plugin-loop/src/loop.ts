/**
 * The loop handler and its probe (CoreDNS `plugin/loop/loop.go`, `setup.go`). At startup the
 * probe sends `HINFO <r1>.<r2>.<zone>` to this server; the handler counts how often that exact
 * name comes through. A name that nobody else would ever ask for seen three times means our own
 * query came back to us: a forwarding loop, which would eat memory and CPU until the host dies,
 * so it is fatal. Once the probe got any reply (or gave up), the handler switches itself off and
 * every query goes straight to the next plugin.
 */
import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import dnsPacket from 'dns-packet';
import { isSubdomain, nextOrFailure, TYPE_HINFO } from '@foghorn/core';
import type { Handler, HandlerResult, Request, ResponseWriter } from '@foghorn/core';


/** How long the probe keeps trying to reach the server (CoreDNS: 30 s). */
export const probeDeadlineMs = 30_000;
/** The probe's read timeout, miekg/dns's default for `dns.Exchange`. */
export const probeTimeoutMs = 2_000;
/** The pause after a failed probe. */
export const probeRetryMs = 1_000;

/** A random non-negative integer below 2^62 in decimal, from a cryptographic source (CoreDNS v1.14). */
function randomLabel(): string {
  return (randomBytes(8).readBigUInt64BE() & ((1n << 62n) - 1n)).toString();
}

/** The probe name for `zone`: `<r1>.<r2>.<zone>`, lower-case and fully qualified. */
export function probeName(zone: string, group?: string): string {
  const [first, second] = group === undefined ? [randomLabel(), randomLabel()] : groupLabels(group, zone);
  return zone === '.' ? `${first}.${second}.` : `${first}.${second}.${zone}`;
}

/**
 * The two labels every worker of `foghorn -workers N` derives from the group's random id: the
 * workers share the port, so the probe one of them sends may reach another, and each must count
 * it as its own or a loop goes unnoticed when the kernel hands the probes to the others.
 */
function groupLabels(group: string, zone: string): [string, string] {
  const digest = createHash('sha256').update(`${group}\0${zone}`).digest();
  const label = (offset: number): string => (digest.readBigUInt64BE(offset) & ((1n << 62n) - 1n)).toString();
  return [label(0), label(8)];
}

/** `host:port` the Go way (`net.JoinHostPort`): `:53`, `127.0.0.1:53`, `[::1]:53`. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The loop detector: one per server block, shared by its handler and its probe. The state is a
 * counter and a switch; only HINFO queries under the probe zone, while the probe runs, cost more
 * than one comparison.
 */
export class Loop implements Handler {
  readonly name = 'loop';
  next: Handler | null = null;
  /** The probe's target as CoreDNS prints it (`:53`, `127.0.0.1:1053`). */
  address = '';
  private seen = 0;
  private off = false;

  constructor(
    /** The probe zone: the block's first key. */
    readonly zone: string,
    /** The probe name, lower-case. */
    readonly qname: string,
    private readonly fatal: (message: string) => void,
  ) {}

  serveDNS(req: Request, w: ResponseWriter): HandlerResult {
    if (req.qtype === TYPE_HINFO && !this.off && isSubdomain(req.qname, this.zone)) {
      if (req.qname === this.qname) this.seen++;
      if (this.seen > 2) {
        // Report once: a host that does not exit on fatal errors keeps serving, loop or not.
        this.off = true;
        const client = joinHostPort(req.remoteAddress, req.remotePort);
        this.fatal(
          `Loop (${client} -> ${this.address}) detected for zone "${this.zone}", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO ${this.qname}"`,
        );
      }
    }
    return nextOrFailure(this.name, this.next, req, w);
  }

  /** How often the probe name came through since the last reset. */
  get count(): number {
    return this.seen;
  }

  /** True once the probe is over: every query passes straight through. */
  get disabled(): boolean {
    return this.off;
  }

  reset(): void {
    this.seen = 0;
  }

  disable(): void {
    this.off = true;
  }
}

/** Where the probe goes: the listen host ('' = every address, reached on loopback) and port. */
export interface ProbeTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * Sends the probe until a reply comes back or the deadline passes, then disables `loop`
 * (CoreDNS's OnStartup goroutine). Returns a function that stops it early (shutdown, reload).
 */
export function startProbe(loop: Loop, target: ProbeTarget): () => void {
  let stopped = false;
  let cancel: (() => void) | undefined;
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      cancel = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const run = async (): Promise<void> => {
    const deadline = Date.now() + probeDeadlineMs;
    const query = dnsPacket.encode({
      type: 'query',
      id: randomBytes(2).readUInt16BE(),
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'HINFO', name: loop.qname, class: 'IN' }],
    });
    const sendTo = target.host === '' || target.host === '0.0.0.0' ? '127.0.0.1' : target.host === '::' ? '::1' : target.host;
    while (!stopped && Date.now() < deadline) {
      loop.address = joinHostPort(target.host, target.port);
      const ok = await exchange(query, sendTo, target.port, (abort) => (cancel = abort));
      if (ok || stopped) break;
      loop.reset();
      await wait(probeRetryMs);
    }
    loop.disable();
  };
  void run();
  return () => {
    stopped = true;
    cancel?.();
  };
}

/** One UDP exchange: resolves true when a reply with the query's id arrives in time. */
function exchange(query: Buffer, host: string, port: number, onCancel: (abort: () => void) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    const id = query.readUInt16BE(0);
    let done = false;
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), probeTimeoutMs);
    onCancel(() => finish(false));
    socket.on('message', (msg) => {
      if (msg.length >= 2 && msg.readUInt16BE(0) === id) finish(true);
    });
    socket.on('error', () => finish(false));
    socket.send(query, port, host, (error) => {
      if (error) finish(false);
    });
  });
}
