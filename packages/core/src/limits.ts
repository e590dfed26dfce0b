/**
 * Resource limits of the listeners: what one process may hold for its clients, so a burst or a
 * hostile client costs bounded memory and descriptors.
 *
 * - UDP: the socket receive buffer is what absorbs a burst while the event loop answers; the
 *   kernel default (net.core.rmem_default, 208 KiB) holds about 200 small queries. Each
 *   listener asks for {@link UDP_RECEIVE_BUFFER}; Linux caps the request at net.core.rmem_max
 *   and the cap is reported once at start-up. libuv already drains up to 32 datagrams per
 *   wake-up (src/unix/udp.c `uv__udp_recvmsg`), which is the batching Node offers.
 * - Descriptors: Node raises the soft RLIMIT_NOFILE to the hard limit at start-up by itself
 *   (src/node.cc `PlatformInit`), as Go does for CoreDNS, so nothing needs a native module. What
 *   remains is to stay below the limit: the default TCP connection cap is derived from it.
 */
import { readFileSync } from 'node:fs';
import type dgram from 'node:dgram';

/** Receive buffer each UDP listener asks for: about 8,000 queued small queries. */
export const UDP_RECEIVE_BUFFER = 8 * 1024 * 1024;

/** The size the kernel granted, and whether it is less than asked. */
export interface ReceiveBuffer {
  readonly size: number;
  readonly capped: boolean;
}

/**
 * Asks for a `wanted`-byte receive buffer on a bound socket. Linux doubles the value it stores
 * (the bookkeeping overhead, socket(7)) and caps the request at net.core.rmem_max without an
 * error, so the answer is read back.
 */
export function raiseReceiveBuffer(socket: dgram.Socket, wanted = UDP_RECEIVE_BUFFER): ReceiveBuffer {
  let size: number;
  try {
    if (socket.getRecvBufferSize() < wanted) socket.setRecvBufferSize(wanted);
    size = socket.getRecvBufferSize();
  } catch {
    return { size: 0, capped: true };
  }
  return { size, capped: size < wanted };
}

/** The process's RLIMIT_NOFILE, or undefined where /proc is not there (not Linux). */
export interface DescriptorLimit {
  readonly soft: number;
  readonly hard: number;
}

/** Reads RLIMIT_NOFILE from /proc/self/limits ("unlimited" reads as Infinity). */
export function descriptorLimit(limits = '/proc/self/limits'): DescriptorLimit | undefined {
  let text: string;
  try {
    text = readFileSync(limits, 'latin1');
  } catch {
    return undefined;
  }
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!match) return undefined;
  const value = (s: string): number => (s === 'unlimited' ? Infinity : Number(s));
  return { soft: value(match[1]!), hard: value(match[2]!) };
}

/**
 * The default cap of concurrent TCP connections per listener: {@link DEFAULT_MAX_TCP_CONNECTIONS},
 * lowered to half the soft descriptor limit so that upstream sockets (forward), files and the
 * other listeners keep the other half (Knot DNS's `tcp-max-clients` default is the same half).
 */
export function defaultMaxConnections(limit: DescriptorLimit | undefined = descriptorLimit()): number {
  if (!limit || !Number.isFinite(limit.soft)) return DEFAULT_MAX_TCP_CONNECTIONS;
  return Math.max(1, Math.min(DEFAULT_MAX_TCP_CONNECTIONS, Math.floor(limit.soft / 2)));
}

/** Concurrent TCP connections per listener unless the descriptor limit is lower. */
export const DEFAULT_MAX_TCP_CONNECTIONS = 10_000;
