/**
 * DNS over TLS (RFC 7858): a TLS server whose connections carry the same length-prefixed
 * messages as TCP (RFC 7858 §3.3), served by the TCP framing of {@link Listener}: several
 * queries per connection, pipelined, answered out of order, with the same timeouts.
 *
 *   TLS handshake (TLS 1.2+, client_auth policy) ─► Listener.onConnection ─► framing ─► serve
 */
import tls from 'node:tls';
import type net from 'node:net';
import { listenError } from './address.js';
import { bindStream, GRACEFUL_STOP_MS, Listener, wrapListenError } from './listener.js';
import type { ServerSettings, TlsSettings } from './plugin.js';
import { TLS_CONNECTION_BYTES, TLS_HANDSHAKE_BYTES } from './tcp-limits.js';
import type { GuardedConnection } from './tcp-limits.js';

/**
 * The TCP socket under a TLS one: the accepted connection, the one the caps count. Node keeps it
 * as `_parent` (lib/_tls_wrap.js), the only link from a server's TLS socket back to it.
 */
export function tcpSocketOf(socket: tls.TLSSocket): net.Socket | undefined {
  return (socket as unknown as { _parent?: net.Socket | null })._parent ?? undefined;
}

/**
 * CoreDNS's cipher suites for TLS 1.2 (plugin/pkg/tls `setTLSDefaults`): ECDHE with AEAD only.
 * TLS 1.3 keeps OpenSSL's suites, which are all AEAD.
 */
const tls12Ciphers = [
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
].join(':');

/**
 * Node's server options for a block's certificate and client policy. Go's `RequireAnyClientCert`
 * and `VerifyClientCertIfGiven` have no Node flag: both request a certificate without rejecting,
 * and {@link clientAllowed} decides once the handshake is done.
 */
export function secureServerOptions(settings: TlsSettings): tls.TlsOptions {
  const verify = settings.clientAuth === 'require_and_verify';
  return {
    cert: settings.cert,
    key: settings.key,
    ...(settings.ca ? { ca: settings.ca } : {}),
    minVersion: 'TLSv1.2',
    ciphers: tls12Ciphers,
    honorCipherOrder: true,
    requestCert: settings.clientAuth !== 'nocert',
    rejectUnauthorized: verify,
  };
}

/** Whether a finished handshake satisfies the block's `client_auth` (the policies Node cannot enforce itself). */
export function clientAllowed(socket: tls.TLSSocket, settings: TlsSettings): boolean {
  switch (settings.clientAuth) {
    case 'require':
      return socket.getPeerX509Certificate() !== undefined;
    case 'verify_if_given':
      return socket.authorized || socket.getPeerX509Certificate() === undefined;
    default:
      return true;
  }
}

/**
 * Swaps the certificate and client policy of a running TLS server (a reload): new connections get
 * them, open ones keep theirs. The session ticket keys are kept, so clients resume across reloads.
 */
export function renewSecureContext(server: tls.Server, settings: TlsSettings): void {
  const options = secureServerOptions(settings);
  server.setSecureContext({ ...options, ticketKeys: server.getTicketKeys() });
  // setSecureContext leaves the client policy alone; Node reads these two per new connection.
  Object.assign(server, { requestCert: options.requestCert, rejectUnauthorized: options.rejectUnauthorized });
}

/** One DoT listener: `tls://zone:853`. */
export class TlsListener extends Listener {
  /**
   * Every accepted socket, handshake done or not, with its place in the connection caps (taken
   * at accept: a handshake that never ends is an idle connection), so a stop can cut the ones
   * still handshaking.
   */
  private readonly accepted = new Map<net.Socket, GuardedConnection>();

  override configure(settings: ServerSettings): void {
    super.configure(settings);
    const server = this.tcp as tls.Server | undefined;
    if (server && settings.tls) renewSecureContext(server, settings.tls);
  }

  protected override async bind(): Promise<void> {
    const settings = this.settings;
    if (!settings.tls) throw new Error(`${this.server}: no tls settings`);
    const server = tls.createServer({
      ...secureServerOptions(settings.tls),
      // A client that connects and never completes its handshake holds a connection: give it the read timeout.
      handshakeTimeout: settings.readTimeoutMs ?? 3_000,
    });
    server.on('connection', (socket: net.Socket) => {
      const guarded = this.guard.admit(socket, TLS_HANDSHAKE_BYTES);
      this.accepted.set(socket, guarded);
      socket.once('close', () => {
        this.accepted.delete(socket);
        this.guard.release(guarded);
      });
    });
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      // The current settings: a reload may have changed the policy since the server was made.
      if (!this.settings.tls || !clientAllowed(socket, this.settings.tls)) {
        socket.destroy();
        return;
      }
      const tcp = tcpSocketOf(socket);
      const guarded = tcp && this.accepted.get(tcp);
      if (guarded) this.guard.secured(guarded, TLS_CONNECTION_BYTES);
      this.onConnection(socket, guarded);
    });
    // Garbage instead of a handshake, a bad client certificate, a timeout: that connection only.
    server.on('tlsClientError', (_error: Error, socket: tls.TLSSocket) => socket.destroy());
    try {
      this.tcp = await bindStream(server, this.options.host, this.options.port);
    } catch (error) {
      throw wrapListenError(`Listen: ${listenError(this.where(this.options.port), error).message}`, error);
    }
    this.boundPort = (this.tcp.address() as net.AddressInfo).port;
    this.tcp.on('error', (error) => this.options.logger.error(`${this.server}: TLS: ${error.message}`));
  }

  /** As {@link Listener.close}, and connections still in their handshake are cut after `graceMs` too. */
  override async close(graceMs?: number): Promise<void> {
    const timer = setTimeout(() => {
      for (const socket of this.accepted.keys()) socket.destroy();
    }, graceMs ?? GRACEFUL_STOP_MS);
    try {
      await super.close(graceMs);
    } finally {
      clearTimeout(timer);
    }
  }
}
