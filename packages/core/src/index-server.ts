/**
 * `@foghorn/core/server`: running Corefiles, for the `foghorn` CLI and programs that embed a
 * server. Plugins never import it: what they need is in `@foghorn/core`.
 *
 * @module
 */

// The server: start, reload, stop.
export { Server, validateCorefile } from './server.js';
export type { ListenerInfo, ServerOptions } from './server.js';
export type { ListenerEvents } from './listener.js';

// Assembling a Corefile into chains and listen addresses.
export { buildInstance, Instance } from './instance.js';
export type { AddressPlan, BuildContext, DirectiveEntry, HookKind } from './instance.js';
export { RouteTable } from './routes.js';
export type { Route } from './routes.js';
export { serverLabel } from './keys.js';

// One query through the routes to a reply, for every listener and `foghorn -query`.
export { dispatch, rejectReply, ReplyWriter } from './dispatch.js';
export type { DispatchContext } from './dispatch.js';

// Listener limits and their defaults.
export { defaultStreamTimeouts } from './listener.js';
export { cacheMaxAge, defaultHttp2MaxStreams, DOH_PATH } from './doh-listener.js';
export { DEFAULT_MAX_TCP_CONNECTIONS, defaultMaxConnections, descriptorLimit, UDP_RECEIVE_BUFFER } from './limits.js';
export type { DescriptorLimit } from './limits.js';
export { DEFAULT_MAX_BUFFERED_BYTES, defaultTcpLimits } from './tcp-limits.js';
export type { TcpLimits } from './tcp-limits.js';

// Workers: whether this process binds through the cluster primary.
export { sharedHandles } from './workers.js';
