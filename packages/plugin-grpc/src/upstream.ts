/**
 * The TO arguments of `grpc`, read as CoreDNS's `parse.HostPortOrFile` reads them: `IP`,
 * `IP:PORT`, `[IPv6]:PORT`, `unix:///path`, or a resolv.conf-style file whose `nameserver`
 * addresses are taken (port 53). Parsing reads files; it never resolves or connects.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { errorMessage } from '@foghorn/core';
import { splitHostPort, stripZone } from '@foghorn/core/wire';

/** One upstream: `address` is CoreDNS's `to` label, `target` the gRPC channel target. */
export interface Upstream {
  readonly address: string;
  readonly target: string;
}

/** A TO that cannot be used, in CoreDNS's words; the caller adds the position. */
export class UpstreamError extends Error {}

/** The port a bare IP gets (CoreDNS's `transport.Port`: HostPortOrFile's default, even for gRPC). */
const DEFAULT_PORT = 53;

/** Schemes HostPortOrFile knows; CoreDNS then hands `tls://…` and the others to gRPC as they are, where they cannot connect. */
const otherSchemes = ['tls', 'quic', 'grpc', 'https3', 'https'];

function join(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function ipUpstream(host: string, port: number | string): Upstream {
  const address = join(host, port);
  return { address, target: isIP(stripZone(host)) === 6 ? `ipv6:${address}` : `ipv4:${address}` };
}

/** The nameservers of a resolv.conf-style file, or CoreDNS's error when it cannot be read. */
function fromFile(to: string): Upstream[] {
  let text: string;
  try {
    text = readFileSync(to, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `failed to open file "${to}": "open ${to}: no such file or directory"` : errorMessage(error);
    throw new UpstreamError(`not an IP address or file "${to}": ${why}`);
  }
  const upstreams: Upstream[] = [];
  for (const line of text.split('\n')) {
    const [keyword, server] = line.trim().split(/\s+/);
    if (keyword === 'nameserver' && server !== undefined && isIP(stripZone(server)) !== 0) upstreams.push(ipUpstream(stripZone(server), DEFAULT_PORT));
  }
  return upstreams;
}

/** One TO argument: one upstream, or one per nameserver of a file. */
export function parseUpstream(to: string): Upstream[] {
  const scheme = /^([a-z0-9]+):\/\//.exec(to);
  let host = to;
  if (scheme !== null) {
    const name = scheme[1] as string;
    if (name === 'unix' || name === 'dns') host = to.slice(scheme[0].length);
    else if (otherSchemes.includes(name)) throw new UpstreamError(`'${name}' is not supported as a destination protocol in grpc: ${to}`);
  }
  if (host === '') throw new UpstreamError(`invalid address: "${to}"`);
  if (scheme?.[1] === 'unix') return [{ address: `unix://${host}`, target: `unix://${host}` }];
  let split: { host: string; port: string };
  try {
    split = splitHostPort(host);
  } catch {
    // Not host:port: a bare IP gets port 53, anything else is a file.
    const bare = host.replace(/^\[|\]$/g, '');
    if (isIP(stripZone(bare)) !== 0) return [ipUpstream(bare, DEFAULT_PORT)];
    return fromFile(host);
  }
  if (isIP(stripZone(split.host)) === 0) return fromFile(host);
  if (!/^[0-9]+$/.test(split.port) || Number(split.port) > 65535) throw new UpstreamError(`invalid port in address: "${to}"`);
  return [ipUpstream(split.host, split.port)];
}
