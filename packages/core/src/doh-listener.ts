/**
 * DNS over HTTPS (RFC 8484) on `/dns-query`: HTTP/2 with HTTP/1.1 on the same port (ALPN), the
 * behaviour of CoreDNS's core/dnsserver/server_https.go and plugin/pkg/doh:
 *
 *   GET ?dns=BASE64URL │ POST body ─► readQuery ─► dispatch ─► 200 application/dns-message
 *   other path: 404 │ other method, bad base64, body > 64 KiB, unreadable message: 400
 *   chain wrote nothing: 500
 *
 * The reply carries `Cache-Control: max-age=` the smallest TTL of the message (RFC 8484 §5.1).
 * Queries count as `tcp` (`{proto}`, metrics), as CoreDNS's DoH writer reports a TCP address.
 */
import http2 from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { TYPE_NS, TYPE_OPT, TYPE_SOA } from './constants.js';
import { listenError } from './address.js';
import { dispatch, rejectReply, ReplyWriter } from './dispatch.js';
import { errorMessage } from './errors.js';
import { bindStream, clientAddress, defaultStreamTimeouts, GRACEFUL_STOP_MS, Listener, wrapListenError } from './listener.js';
import type { ServerSettings } from './plugin.js';
import { Request } from './request.js';
import { TLS_CONNECTION_BYTES, TLS_HANDSHAKE_BYTES } from './tcp-limits.js';
import type { GuardedConnection } from './tcp-limits.js';
import { clientAllowed, renewSecureContext, secureServerOptions, tcpSocketOf } from './tls-listener.js';
import { emptyHeader, readQuery, skipName, Verdict } from './wire.js';
import type { QueryHeader } from './wire.js';

/** RFC 8484 §4.1's path, the only one CoreDNS serves. */
export const DOH_PATH = '/dns-query';
const MIME_TYPE = 'application/dns-message';
/** The largest body or decoded `dns` parameter CoreDNS reads (plugin/pkg/doh `maxDNSQuerySize`). */
const MAX_QUERY_SIZE = 65_536;
const MAX_BASE64_LENGTH = Math.floor((MAX_QUERY_SIZE * 8 + 5) / 6);
/** Concurrent streams per HTTP/2 connection, Go's http2 server default (Node's is unlimited). */
export const defaultHttp2MaxStreams = 250;

/** dnsutil's bounds of the max-age: 5 s for errors and empty replies, at most one hour. */
const MIN_MAX_AGE = 5;
const MAX_MAX_AGE = 3_600;

type HttpRequest = Http2ServerRequest | IncomingMessage;
type HttpResponse = Http2ServerResponse | ServerResponse;

/** Keeps the reply until the chain is done, as CoreDNS's DoHWriter does, then answers the HTTP request. */
class DohWriter extends ReplyWriter {
  private wire: Buffer | undefined;

  constructor(
    req: Request,
    private readonly listener: DohListener,
    private readonly res: HttpResponse,
  ) {
    super(req);
  }

  protected send(wire: Buffer): number {
    this.answered();
    this.wire = wire;
    return wire.length;
  }

  override done(): void {
    if (this.wire === undefined) this.listener.httpError(this.res, 500, 'No response');
    else this.listener.respond(this.res, this.wire);
  }
}

/**
 * RFC 8484 §5.1 with CoreDNS's `dnsutil.MinimalTTLWithMaximum`, read from the reply's wire: the
 * smallest TTL of every record but OPT, at most an hour; 5 s for errors, delegations and replies
 * without records.
 */
export function cacheMaxAge(wire: Buffer): number {
  if (wire.length < 12) return MIN_MAX_AGE;
  const flags = wire.readUInt16BE(2);
  const rcode = flags & 0xf;
  if ((flags >> 11) & 0xf || (rcode !== 0 && rcode !== 3)) return MIN_MAX_AGE;
  const answers = wire.readUInt16BE(6);
  const authority = wire.readUInt16BE(8);
  const total = answers + authority + wire.readUInt16BE(10);
  let offset = 12;
  for (let i = wire.readUInt16BE(4); i > 0; i--) {
    const end = skipName(wire, offset);
    if (end < 0) return MIN_MAX_AGE;
    offset = end + 4;
  }
  let min = MAX_MAX_AGE;
  let records = 0;
  let soa = false;
  let ns = false;
  for (let i = 0; i < total; i++) {
    offset = skipName(wire, offset);
    if (offset < 0 || offset + 10 > wire.length) return MIN_MAX_AGE;
    const type = wire.readUInt16BE(offset);
    const ttl = wire.readUInt32BE(offset + 4);
    offset += 10 + wire.readUInt16BE(offset + 8);
    if (type === TYPE_OPT) continue;
    records++;
    if (i >= answers && i < answers + authority) {
      if (type === TYPE_SOA) soa = true;
      else if (type === TYPE_NS) ns = true;
    }
    if (ttl < min) min = ttl;
  }
  if (records === 0) return MIN_MAX_AGE;
  // response.Typify's Delegation: no answer, NS and no SOA in authority.
  if (answers === 0 && rcode === 0 && ns && !soa) return MIN_MAX_AGE;
  return min;
}

/** The one `dns` parameter of a GET, decoded as RFC 4648 base64url without padding; undefined if invalid. */
export function dnsParameter(query: string): Buffer | undefined {
  const values = new URLSearchParams(query).getAll('dns');
  if (values.length !== 1) return undefined;
  const text = values[0]!;
  // Node's decoder skips characters it does not know; Go's RawURLEncoding refuses them.
  if (text.length > MAX_BASE64_LENGTH || text.length % 4 === 1 || !/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  return Buffer.from(text, 'base64url');
}

/** An accepted DoH connection: its place in the connection caps and its requests in progress. */
interface HeldConnection {
  readonly guarded: GuardedConnection;
  requests: number;
}

/** One DoH listener: `https://zone:443`. */
export class DohListener extends Listener {
  private httpsServer: http2.Http2SecureServer | undefined;
  private readonly sessions = new Set<Http2Session>();
  /** Every accepted socket, handshake done or not, so a stop can cut them all, and its requests in progress. */
  private readonly sockets = new Map<net.Socket, HeldConnection>();
  private readonly dohHeader: QueryHeader = emptyHeader();

  /** The timeouts in force: CoreDNS's defaults, overridden by *timeouts*; computed once per configuration. */
  private timeouts: { readTimeoutMs: number; writeTimeoutMs: number; idleTimeoutMs: number } = { ...defaultStreamTimeouts };

  override configure(settings: ServerSettings): void {
    super.configure(settings);
    const { readTimeoutMs, writeTimeoutMs, idleTimeoutMs } = { ...defaultStreamTimeouts, ...settings };
    this.timeouts = { readTimeoutMs, writeTimeoutMs, idleTimeoutMs };
    if (this.httpsServer && settings.tls) renewSecureContext(this.httpsServer, settings.tls);
    this.httpsServer?.setTimeout(this.timeouts.idleTimeoutMs);
  }

  protected override async bind(): Promise<void> {
    const settings = this.settings;
    if (!settings.tls) throw new Error(`${this.server}: no tls settings`);
    const server = http2.createSecureServer({
      ...secureServerOptions(settings.tls),
      ALPNProtocols: ['h2', 'http/1.1'],
      allowHTTP1: true,
      handshakeTimeout: this.timeouts.readTimeoutMs,
      settings: { maxConcurrentStreams: defaultHttp2MaxStreams },
    });
    server.setTimeout(this.timeouts.idleTimeoutMs);
    server.on('connection', (socket: net.Socket) => {
      // Replies are small and each is a whole response: send at once, not after Nagle's delay.
      socket.setNoDelay(true);
      // The same caps as TCP and DoT: admitted at accept, idle while no request is in progress.
      const held: HeldConnection = { guarded: this.guard.admit(socket, TLS_HANDSHAKE_BYTES), requests: 0 };
      this.sockets.set(socket, held);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.guard.release(held.guarded);
      });
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      if (!this.settings.tls || !clientAllowed(socket, this.settings.tls)) return void socket.destroy();
      const tcp = tcpSocketOf(socket);
      const held = tcp && this.sockets.get(tcp);
      if (held) this.guard.secured(held.guarded, TLS_CONNECTION_BYTES);
    });
    server.on('session', (session: Http2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
      session.on('error', () => session.destroy());
    });
    server.on('tlsClientError', (_error: Error, socket: TLSSocket) => socket.destroy());
    server.on('request', (req: HttpRequest, res: HttpResponse) => {
      this.track(req, res);
      // A throw here would end the process (an uncaught exception in an event handler): answer 500 instead.
      try {
        this.onRequest(req, res);
      } catch (error) {
        this.options.logger.error(`${this.server}: DoH request: ${errorMessage(error)}`);
        this.httpError(res, 500, 'Internal Server Error');
      }
    });
    try {
      this.httpsServer = await bindStream(server, this.options.host, this.options.port);
    } catch (error) {
      throw wrapListenError(`Listen: ${listenError(this.where(this.options.port), error).message}`, error);
    }
    this.boundPort = (server.address() as net.AddressInfo).port;
    server.on('error', (error) => this.options.logger.error(`${this.server}: HTTPS: ${error.message}`));
  }

  /** Stops accepting; HTTP/2 sessions finish their streams (GOAWAY), everything is cut after `graceMs`. */
  override async close(graceMs = GRACEFUL_STOP_MS): Promise<void> {
    const server = this.httpsServer;
    this.httpsServer = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of this.sessions) session.close();
    const cut = (): void => {
      for (const socket of this.sockets.keys()) socket.destroy();
      for (const session of this.sessions) session.destroy();
    };
    const timer = setTimeout(cut, graceMs);
    if (graceMs === 0) cut();
    await closed;
    clearTimeout(timer);
  }

  /** A request (an HTTP/2 stream) is in progress on its connection until its response closes. */
  private track(req: HttpRequest, res: HttpResponse): void {
    // An HTTP/2 request's socket is a proxy of the session's TLS socket; both lead to the TCP one.
    const tcp = tcpSocketOf(req.socket as TLSSocket);
    const held = tcp && this.sockets.get(tcp);
    if (!held) return;
    held.requests++;
    this.guard.touch(held.guarded, false);
    res.once('close', () => {
      held.requests--;
      this.guard.touch(held.guarded, held.requests === 0);
    });
  }

  private onRequest(req: HttpRequest, res: HttpResponse): void {
    const url = req.url ?? '';
    const mark = url.indexOf('?');
    if ((mark < 0 ? url : url.slice(0, mark)) !== DOH_PATH) return this.httpError(res, 404, '');
    if (req.method === 'GET') {
      const wire = dnsParameter(mark < 0 ? '' : url.slice(mark + 1));
      if (wire === undefined) return this.badRequest(res, "no valid 'dns' query parameter");
      return this.onQuery(req, res, wire);
    }
    if (req.method !== 'POST') return this.badRequest(res, `method not allowed: ${req.method ?? ''}`);
    const chunks: Buffer[] = [];
    let size = 0;
    // The whole body must arrive within the read timeout (Go's http.Server ReadTimeout).
    const timer = setTimeout(() => req.destroy(), this.timeouts.readTimeoutMs);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_QUERY_SIZE) return void chunks.push(chunk);
      // Go's MaxBytesReader: stop reading, answer 400, and drop the rest with the stream.
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      this.badRequest(res, 'http: request body too large', () => req.destroy());
    };
    const onEnd = (): void => {
      clearTimeout(timer);
      this.onQuery(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => clearTimeout(timer));
  }

  /** CoreDNS's 400 for a request it cannot parse, and its `[DEBUG]` line saying why (*debug*). */
  private badRequest(res: HttpResponse, reason: string, then?: () => void): void {
    this.options.logger.debug(`DoH request could not be parsed: ${reason}`);
    this.httpError(res, 400, 'invalid request', then);
  }

  private onQuery(req: HttpRequest, res: HttpResponse, wire: Buffer): void {
    const verdict = readQuery(wire, this.dohHeader);
    // CoreDNS answers 400 to a message it cannot unpack; NOTIMP is a DNS answer like over TCP.
    if (verdict === Verdict.Drop || verdict === Verdict.FormErr) return this.badRequest(res, 'not a DNS query');
    if (verdict !== Verdict.Accept) return this.respond(res, rejectReply(wire, verdict, this.dohHeader)!);
    const socket = req.socket;
    const query = new Request(wire, this.dohHeader, 'tcp', clientAddress(socket.remoteAddress ?? ''), socket.remotePort ?? 0);
    dispatch(this.routing, query, new DohWriter(query, this, res));
  }

  /** 200 with the DNS reply. */
  respond(res: HttpResponse, wire: Buffer): void {
    if (res.writableEnded || res.destroyed) return;
    this.options.events?.httpsResponse?.(this.server, 200);
    res.setTimeout(this.timeouts.writeTimeoutMs, () => res.destroy());
    res.writeHead(200, { 'content-type': MIME_TYPE, 'cache-control': `max-age=${cacheMaxAge(wire)}`, 'content-length': wire.length });
    res.end(wire);
  }

  /** Go's `http.Error`: a plain-text body of the message and a newline. */
  httpError(res: HttpResponse, status: number, message: string, then?: () => void): void {
    if (res.writableEnded || res.destroyed) return;
    this.options.events?.httpsResponse?.(this.server, status);
    const body = `${message}\n`;
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body, then);
  }
}
