/** Starting Foghorn with a `forward` line in front of `whoami`; the upstreams come from @foghorn/testkit. */
import type { TestContext } from 'node:test';
import type { PluginDefinition } from '@foghorn/core';
import { directivesOf, startServer } from '@foghorn/testkit';
import type { TestServer } from '@foghorn/testkit';
import bind from '@foghorn/plugin-bind';
import whoami from '@foghorn/plugin-whoami';
import { createForwardPlugin } from '@foghorn/plugin-forward';
import type { ForwardRuntime } from '@foghorn/plugin-forward';

/**
 * Starts Foghorn with `body` then `whoami` in a `.:0` block bound to 127.0.0.1, closed after the
 * test. `before` are plugins a test puts in the chain ahead of forward.
 */
export async function serve(t: TestContext, body: string, runtime: Partial<ForwardRuntime> = {}, before: readonly PluginDefinition[] = []): Promise<TestServer> {
  const server = await startServer(`.:0 {\n bind 127.0.0.1\n ${body}\n whoami\n}\n`, { directives: directivesOf(bind, ...before, createForwardPlugin(runtime), whoami) });
  t.after(() => server.close());
  return server;
}
