/**
 * log's `{rsize}` for the answers kubernetes and lighthouse assemble as bytes: CoreDNS's recorder
 * counts the reply its plugin wrote, before the scrub writer adds the OPT, so an EDNS query's
 * `{rsize}` is the reply's length without the OPT's 11 octets, as for any other plugin.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { standardDirectives } from 'foghorn';
import { createLogPlugin } from '@foghorn/plugin-log';
import { makeQuery, startServer, udpExchange } from '@foghorn/testkit';
import { repoRoot } from './cli-helpers.js';

test('{rsize} of kubernetes and lighthouse answers leaves out the OPT, as CoreDNS logs it', async (t) => {
  const logged: string[] = [];
  const log = createLogPlugin({ sink: (line) => logged.push(line) });
  const directives = standardDirectives().map((entry) => (entry.name === 'log' ? { ...entry, load: () => log } : entry));
  const server = await startServer(
    `cluster.local:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  kubernetes cluster.local {
    manifests ${repoRoot}examples/cluster
  }
}
clusterset.local:0 {
  bind 127.0.0.1
  log . "{name} {rsize}"
  lighthouse {
    manifests ${repoRoot}examples/clusterset
    cluster_id cluster1
  }
}
`,
    { directives },
  );
  t.after(() => server.close());
  for (const [zone, name] of [
    ['cluster.local.', 'web.shop.svc.cluster.local'],
    ['clusterset.local.', 'checkout.shop.svc.clusterset.local'],
  ] as const) {
    for (const edns of [false, true]) {
      const reply = await udpExchange({ port: server.port(zone) }, makeQuery(name, 'A', edns ? { udpSize: 1232 } : {}));
      assert.ok(reply, `${name} answered`);
      const expected = reply.length - (edns ? 11 : 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(logged.pop(), `[INFO] ${name}. ${expected}`, `${name}, EDNS ${edns}`);
    }
  }
});
