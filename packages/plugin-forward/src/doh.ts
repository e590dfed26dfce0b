/**
 * DNS over HTTPS (RFC 8484) to one `https://` upstream: POST (or GET) of the wire message with
 * ID 0 to `/dns-query`, over a keep-alive agent so connections are reused.
 */
import https from 'node:https';
import type tls from 'node:tls';
import { answersQuestion, withId } from './wire.js';

/** CoreDNS's DoH client timeout. */
export const DOH_TIMEOUT_MS = 2_000;

export class DohClient {
  private readonly agent: https.Agent;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly method: 'GET' | 'POST',
    tlsOptions: tls.ConnectionOptions,
  ) {
    this.agent = new https.Agent({ keepAlive: true, ...tlsOptions });
  }

  /** Resolves with the reply (ID 0, as RFC 8484 §4.1 asks of the query). */
  exchange(query: Uint8Array, question: Uint8Array, timeoutMs: number): Promise<Buffer> {
    // RFC 8484 §4.1: the ID SHOULD be 0 so replies are cache-friendly.
    const wire = withId(query, 0);
    const where = `${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
    const path = this.method === 'GET' ? `/dns-query?dns=${wire.toString('base64url')}` : '/dns-query';
    return new Promise<Buffer>((resolve, reject) => {
      const request = https.request(
        {
          host: this.host,
          port: this.port,
          path,
          method: this.method,
          agent: this.agent,
          timeout: Math.min(timeoutMs, DOH_TIMEOUT_MS),
          headers: { accept: 'application/dns-message', ...(this.method === 'POST' ? { 'content-type': 'application/dns-message' } : {}) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            if (response.statusCode !== 200) return reject(new Error(`DoH query to ${where} failed: HTTP ${response.statusCode ?? 0}`));
            const reply = Buffer.concat(chunks);
            if (!answersQuestion(reply, question)) return reject(new Error(`DoH reply from ${where} does not match the question`));
            resolve(reply);
          });
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`Post "https://${where}/dns-query": context deadline exceeded`)));
      request.on('error', reject);
      request.end(this.method === 'POST' ? wire : undefined);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
