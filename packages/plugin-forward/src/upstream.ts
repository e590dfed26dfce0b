/**
 * The TO arguments of `forward` (CoreDNS's plugin/forward): `IP[:PORT]`, `[v6]:PORT`, `dns://…`, `tls://…`
 * (optionally `tls://IP%SERVERNAME[:PORT]`), `https://…`, or a resolv.conf-style file whose
 * `nameserver` lines are used. Parsing only reads files; it never resolves or connects.
 */
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { stripZone } from '@foghorn/core/wire';

/** How an upstream is reached. */
export type UpstreamTransport = 'dns' | 'tls' | 'https';

/** One upstream after parsing. */
export interface Upstream {
  readonly transport: UpstreamTransport;
  /** The IP address, without brackets or zone. */
  readonly host: string;
  readonly port: number;
  /** CoreDNS's `to` metric label: `ip:port`, IPv6 in brackets, no scheme. */
  readonly address: string;
  /** `tls://IP%NAME`: the server name of this upstream only; undefined when not given. */
  readonly serverName?: string;
}

/** Default ports per transport (CoreDNS's `transport.Port`, `TLSPort`, `HTTPSPort`). */
export const defaultPorts: Readonly<Record<UpstreamTransport, number>> = { dns: 53, tls: 853, https: 443 };

/** Schemes CoreDNS recognises but forward refuses as a destination. */
const refusedSchemes = ['grpc', 'quic', 'unix', 'https3'];

/** A TO entry that cannot be used; the caller adds the Corefile position. */
export class UpstreamError extends Error {}

/** `host:port` the way Go's `net.JoinHostPort` writes it. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Splits `host[:port]` / `[v6]:port` / bare IPv6. Returns undefined for the port when none is
 * given, and null for the whole when the text is not an IP address with an optional port.
 */
function splitIpPort(text: string): { host: string; port: number | undefined } | null {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return null;
    const host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest === '') return isIP(stripZone(host)) === 6 ? { host, port: undefined } : null;
    if (!/^:\d+$/.test(rest)) return null;
    return isIP(stripZone(host)) === 6 ? { host, port: Number(rest.slice(1)) } : null;
  }
  if (isIP(stripZone(text)) !== 0) return { host: text, port: undefined };
  const colon = text.lastIndexOf(':');
  if (colon < 0) return null;
  const host = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (!/^\d+$/.test(port) || isIP(host) !== 4) return null;
  return { host, port: Number(port) };
}

/** The `nameserver` addresses of a resolv.conf-style file, or undefined when it is no file. */
export function readResolvConf(path: string): string[] | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const servers: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== 'nameserver' || fields[1] === undefined) continue;
    const host = stripZone(fields[1]);
    if (isIP(host) !== 0) servers.push(fields[1]);
  }
  return servers;
}

/**
 * Parses one TO argument into upstreams (a file gives one per nameserver, an empty one none).
 * Throws {@link UpstreamError} with CoreDNS's wording.
 */
export function parseUpstream(to: string): Upstream[] {
  let transport: UpstreamTransport = 'dns';
  let rest = to;
  const scheme = /^([a-z0-9]+):\/\//i.exec(to);
  if (scheme !== null) {
    const name = (scheme[1] ?? '').toLowerCase();
    rest = to.slice(scheme[0].length);
    if (name === 'dns' || name === 'tls' || name === 'https') transport = name;
    else if (refusedSchemes.includes(name)) throw new UpstreamError(`'${name}' is not supported as a destination protocol in forward: ${to}`);
    else throw new UpstreamError(`not an IP address or file: "${to}"`);
  }
  if (rest === '') throw new UpstreamError(`invalid address: "${to}"`);
  if (transport === 'https') {
    // The DoH path is always /dns-query; CoreDNS refuses any other.
    const slash = rest.indexOf('/');
    if (slash >= 0) {
      if (rest.slice(slash) !== '/dns-query' && rest.slice(slash) !== '/') throw new UpstreamError(`https upstream must not have a path other than /dns-query: "${to}"`);
      rest = rest.slice(0, slash);
    }
  }
  let serverName: string | undefined;
  if (transport === 'tls' && !rest.startsWith('[')) {
    // tls://IP%NAME[:PORT]: a server name for this upstream alone.
    const percent = rest.indexOf('%');
    if (percent >= 0) {
      const tail = rest.slice(percent + 1);
      const colon = tail.lastIndexOf(':');
      serverName = colon >= 0 && /^\d+$/.test(tail.slice(colon + 1)) ? tail.slice(0, colon) : tail;
      rest = rest.slice(0, percent) + (colon >= 0 && serverName !== tail ? tail.slice(colon) : '');
      if (serverName === '') throw new UpstreamError(`invalid address: "${to}"`);
    }
  }
  const split = splitIpPort(rest);
  if (split === null) {
    const servers = scheme === null ? readResolvConf(rest) : undefined;
    if (servers === undefined) throw new UpstreamError(`not an IP address or file: "${rest}"`);
    return servers.map((server) => upstream('dns', server, defaultPorts.dns, undefined));
  }
  const port = split.port ?? defaultPorts[transport];
  if (port < 1 || port > 65535) throw new UpstreamError(`invalid port in "${to}"`);
  return [upstream(transport, split.host, port, serverName)];
}

function upstream(transport: UpstreamTransport, host: string, port: number, serverName: string | undefined): Upstream {
  const address = joinHostPort(host, port);
  return serverName === undefined ? { transport, host, port, address } : { transport, host, port, address, serverName };
}
