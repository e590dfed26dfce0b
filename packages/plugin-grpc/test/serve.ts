/** Starting Foghorn with a `grpc` line in front of `whoami`; the DnsService doubles come from @foghorn/testkit. */
import type { TestContext } from 'node:test';
import { directivesOf, startServer } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createGrpcPlugin } from '@foghorn/plugin-grpc';
import type { GrpcRuntime } from '@foghorn/plugin-grpc';

/** Starts Foghorn with `body` then `whoami` in a `.:0` block bound to 127.0.0.1, closed after the test. */
export async function serve(t: TestContext, body: string, runtime: Partial<GrpcRuntime> = {}): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n whoami\n}\n`, { directives: directivesOf(bind, createGrpcPlugin(runtime), whoami) });
  t.after(() => server.close());
  return server;
}

/** A whoami answer: its additional section carries the client's port as `_udp`/`_tcp` SRV. */
export function fromWhoami(reply: { additionals?: readonly { type: string }[] }): boolean {
  return reply.additionals?.some((rr) => rr.type === 'SRV') ?? false;
}
