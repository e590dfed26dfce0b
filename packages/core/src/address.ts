/**
 * Go's `net.SplitHostPort` and listen errors, because CoreDNS validates the HTTP ADDRESS of
 * *health*, *ready* and *prometheus* with it and operators search for its exact messages
 * (`address foo: missing port in address`, `listen tcp :8080: bind: address already in use`).
 */
import { isIP } from 'node:net';
import { errorMessage } from './errors.js';

/** A `host:port` split the Go way; `host` is '' for "every address", `port` may be ''. */
export interface HostPort {
  readonly host: string;
  readonly port: string;
}

/**
 * Splits `host:port`, `[v6]:port` or `:port`. Throws Go's `address X: REASON` error.
 *
 * @example
 * splitHostPort(':8080')      // { host: '', port: '8080' }
 * splitHostPort('[::1]:8080') // { host: '::1', port: '8080' }
 */
export function splitHostPort(hostport: string): HostPort {
  const fail = (why: string): Error => new Error(`address ${hostport}: ${why}`);
  const i = hostport.lastIndexOf(':');
  if (i < 0) throw fail('missing port in address');
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) throw fail("missing ']' in address");
    if (end + 1 === hostport.length) throw fail('missing port in address');
    if (end + 1 !== i) throw fail(hostport[end + 1] === ':' ? 'too many colons in address' : 'missing port in address');
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(':')) throw fail('too many colons in address');
  }
  if (hostport.slice(j).includes('[')) throw fail("unexpected '[' in address");
  if (hostport.slice(k).includes(']')) throw fail("unexpected ']' in address");
  return { host, port: hostport.slice(i + 1) };
}

/**
 * The numeric port to listen on: '' means any free port, as in Go. Go would also look up
 * service names (`:http`); we only take numbers and say so.
 */
export function listenPort(address: string, port: string): number {
  if (port === '') return 0;
  const n = /^[0-9]+$/.test(port) ? Number(port) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new Error(`listen tcp ${address}: unknown port '${port}'`);
  return n;
}

/** Node's listen errors in Go's words (`listen tcp :8080: bind: address already in use`). */
export function listenError(address: string, error: unknown, network: 'tcp' | 'udp' = 'tcp'): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'bind: address already in use',
    EACCES: 'bind: permission denied',
    EADDRNOTAVAIL: 'bind: cannot assign requested address',
    ENOTFOUND: 'no such host',
  };
  const reason = (code !== undefined ? reasons[code] : undefined) ?? (errorMessage(error));
  return new Error(`listen ${network} ${address}: ${reason}`, { cause: error });
}

/** `host%zone` → `host`: an IPv6 zone index is no part of the address. */
export function stripZone(host: string): string {
  const percent = host.indexOf('%');
  return percent < 0 ? host : host.slice(0, percent);
}

/**
 * CoreDNS's `parse.HostPort`: an IP address with an optional port, as `host:port` (`[v6]:port`),
 * `defaultPort` when none is given. Throws CoreDNS's "must specify an IP address" for a name.
 * *transfer*'s `to` and *secondary*'s `transfer from` addresses are read with it.
 *
 * @example
 * hostPort('192.0.2.1')           // '192.0.2.1:53'
 * hostPort('[2001:db8::1]:5300')  // '[2001:db8::1]:5300'
 */
export function hostPort(text: string, defaultPort = '53'): string {
  let host = text;
  let port = defaultPort;
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    if (bracketed[2]) port = bracketed[2];
  } else if (text.split(':').length === 2) {
    [host, port] = text.split(':') as [string, string];
    if (port === '') port = defaultPort;
  }
  if (isIP(stripZone(host)) === 0) throw new Error(`must specify an IP address: \`${host}'`);
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
