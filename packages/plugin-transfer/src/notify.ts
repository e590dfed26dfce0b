/**
 * NOTIFY (RFC 1996) to the `to` addresses of a zone's `transfer` directive, after CoreDNS's
 * `plugin/transfer/notify.go`: over UDP, three tries each, an error when no try got NOERROR.
 */
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { errorMessage, Flags, OPCODE_NOTIFY, rcodeToString } from '@foghorn/core';
import type { XfrConfig } from './setup.js';

const TRIES = 3;
/** miekg/dns's client timeout for one exchange. */
const EXCHANGE_TIMEOUT_MS = 2_000;

/** The NOTIFY message for `zone` (miekg/dns's `SetNotify`): opcode NOTIFY, AA, the zone's SOA as question. */
export function notifyMessage(zone: string, id: number): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: (OPCODE_NOTIFY << 11) | Flags.AA,
    questions: [{ name: zone, type: 'SOA', class: 'IN' }],
  });
}

/** Sends NOTIFY for `zone` to every address of `x` but `*`; resolves with the failures. */
export async function sendNotifies(x: XfrConfig, zone: string): Promise<Error[]> {
  const targets = x.to.filter((to) => to !== '*');
  const results = await Promise.all(targets.map((to) => notifyOne(to, zone, x.source)));
  return results.filter((error): error is Error => error !== undefined);
}

async function notifyOne(to: string, zone: string, source: string | undefined): Promise<Error | undefined> {
  const bracket = to.startsWith('[');
  const host = bracket ? to.slice(1, to.indexOf(']')) : to.slice(0, to.lastIndexOf(':'));
  const port = Number(to.slice(to.lastIndexOf(':') + 1));
  let last: string = 'no reply';
  for (let i = 0; i < TRIES; i++) {
    try {
      const rcode = await exchange(host, port, notifyMessage(zone, Math.floor(Math.random() * 65536)), source);
      if (rcode === 0) return undefined;
      last = `rcode was "${rcodeToString(rcode)}"`;
    } catch (error) {
      last = `"${errorMessage(error)}"`;
    }
  }
  return new Error(`notify for zone "${zone}" was not accepted by "${to}": ${last}`);
}

/** One UDP exchange; resolves with the reply's rcode. */
function exchange(host: string, port: number, wire: Buffer, source: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    // A secondary that never answers must not keep a stopping process alive for its retries.
    socket.unref();
    const id = wire.readUInt16BE(0);
    const finish = (error: Error | undefined, rcode = 0): void => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(rcode);
    };
    const timer = setTimeout(() => finish(new Error(`read udp ${host}:${port}: i/o timeout`)), EXCHANGE_TIMEOUT_MS);
    timer.unref();
    socket.on('error', (error) => finish(error));
    socket.on('message', (reply) => {
      if (reply.length < 12 || reply.readUInt16BE(0) !== id) return;
      finish(undefined, reply[3]! & 0x0f);
    });
    const send = (): void => socket.send(wire, port, host);
    if (source === undefined) send();
    // exclusive: in a cluster worker (foghorn -workers N) a shared socket would hand the reply to any worker.
    else socket.bind({ port: 0, address: source, exclusive: true }, send);
  });
}
