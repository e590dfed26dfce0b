/**
 * The two requests an informer makes, over node:http(s) with the connection's agent and
 * credentials (connection.ts): a GET of one JSON document (a list page), and a watch, whose body
 * is a stream of JSON events, one a line. Both have what an informer needs and generic clients
 * lack: an idle timeout (a stalled server must not hang the informer forever) and a cancel that
 * works at every stage, so `stop()` leaves no socket.
 */
import http from 'node:http';
import https from 'node:https';
import { formatDuration } from '@foghorn/core';
import type { RequestAuth } from './connection.js';

/** An HTTP error from the API server, with the Status body's reason and message when present. */
export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The body of a failed request, as Kubernetes sends it. */
interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
}

export function statusError(statusCode: number, body: unknown, fallback: string): KubeApiError {
  const status = (typeof body === 'object' && body !== null ? body : {}) as StatusBody;
  const reason = typeof status.reason === 'string' ? status.reason : fallback;
  const detail = typeof status.message === 'string' && status.message !== '' ? `: ${status.message}` : '';
  return new KubeApiError(statusCode, reason, `${statusCode} ${reason}${detail}`);
}

/** A request in flight: `cancel()` destroys its socket at once. */
export interface PendingRequest<T> {
  readonly result: Promise<T>;
  cancel(): void;
}

/** Starts a GET of `server` + `path` + `query`, with a timer that destroys it after `idleTimeoutMs` without data. */
function get(auth: RequestAuth, server: string, path: string, query: URLSearchParams, idleTimeoutMs: number): { request: http.ClientRequest; timer: NodeJS.Timeout } {
  const url = new URL(server + path);
  url.search = query.toString();
  const transport = url.protocol === 'https:' ? https : http;
  const request = transport.request(url, { method: 'GET', agent: auth.agent, headers: { ...auth.headers, Accept: 'application/json' } });
  const timer = setTimeout(() => request.destroy(new Error(`no data for ${formatDuration(idleTimeoutMs)}`)), idleTimeoutMs);
  request.on('response', (res) => {
    timer.refresh();
    res.on('data', () => timer.refresh());
  });
  request.on('close', () => clearTimeout(timer));
  request.end();
  return { request, timer };
}

/** Why a response failed when its connection closed (a reset, a crash) before its end. */
const cutShort = 'connection closed before the response ended';

/** Reads a response to its end, as text. */
function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error(cutShort)));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * GETs `path` (with `query`) and parses the JSON body. Rejects with {@link KubeApiError} on a
 * non-2xx status, or with an error when the server sends nothing for `idleTimeoutMs`. The body's
 * text is released once parsed: a list page is held as text or as objects, not both for long.
 */
export function getJson(auth: RequestAuth, server: string, path: string, query: URLSearchParams, idleTimeoutMs: number): PendingRequest<unknown> {
  const { request } = get(auth, server, path, query, idleTimeoutMs);
  const result = new Promise<unknown>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      readBody(res).then((text) => {
        const body = parseOrUndefined(text);
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) reject(statusError(status, body, http.STATUS_CODES[status] ?? 'Unknown'));
        else if (body === undefined) reject(new Error(`invalid JSON in a ${status} response`));
        else resolve(body);
      }, reject);
    });
  });
  return { result, cancel: () => request.destroy(new Error('cancelled')) };
}

/** What a watch tells its caller. */
export interface WatchHandlers {
  /** The server answered 200: the stream is up. */
  opened(): void;
  /** One event; an exception ends the watch as a failure. */
  event(type: string, object: unknown): void;
  /** The stream ended: cleanly (`error` undefined), on a non-200 status, or broken. */
  closed(error: Error | undefined): void;
}

/**
 * Opens a watch (`query` carries `watch=true` and its options) and hands each event line to
 * `handlers.event` as it arrives; `handlers.closed` is called once, unless cancelled first.
 * `idleTimeoutMs`: destroy the stream when the server sends nothing for that long.
 */
export function openWatch(auth: RequestAuth, server: string, path: string, query: URLSearchParams, idleTimeoutMs: number, handlers: WatchHandlers): { cancel(): void } {
  let done = false;
  const close = (error: Error | undefined): void => {
    if (done) return;
    done = true;
    request.destroy();
    handlers.closed(error);
  };
  const { request } = get(auth, server, path, query, idleTimeoutMs);
  request.on('error', (err) => close(err));
  request.on('response', (res) => {
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      readBody(res).then(
        (text) => close(statusError(status, parseOrUndefined(text), http.STATUS_CODES[status] ?? 'Unknown')),
        (err: Error) => close(err),
      );
      return;
    }
    handlers.opened();
    res.setEncoding('utf8');
    let pending = '';
    res.on('data', (chunk: string) => {
      if (done) return;
      pending += chunk;
      let start = 0;
      for (let end = pending.indexOf('\n'); !done && end >= 0; end = pending.indexOf('\n', start)) {
        const line = pending.slice(start, end).trim();
        start = end + 1;
        if (line === '') continue;
        let event: { type?: unknown; object?: unknown };
        try {
          event = JSON.parse(line) as { type?: unknown; object?: unknown };
        } catch {
          close(new Error(`invalid JSON in a watch event: ${line.slice(0, 80)}`));
          return;
        }
        try {
          handlers.event(typeof event.type === 'string' ? event.type : '', event.object);
        } catch (err) {
          close(err instanceof Error ? err : new Error(String(err)));
          return;
        }
      }
      pending = pending.slice(start);
    });
    res.on('error', (err) => close(err));
    res.on('aborted', () => close(new Error(cutShort)));
    res.on('end', () => close(undefined));
  });
  return {
    cancel: () => {
      done = true;
      request.destroy();
    },
  };
}
