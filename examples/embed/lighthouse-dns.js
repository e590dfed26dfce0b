#!/usr/bin/env node
// A Lighthouse-only DNS server in a few lines: this program chooses its own directive list, the
// way Lighthouse's main.go embeds CoreDNS with its own Directives array, and serves a Corefile.
//
//   node examples/embed/lighthouse-dns.js [COREFILE]
//
// Without an argument it serves examples/clusterset/ on 127.0.0.1:1053.
import { createServer } from 'foghorn';

const corefile = process.argv[2]
  ? { file: process.argv[2] }
  : `clusterset.local:1053 {
    bind 127.0.0.1
    errors
    lighthouse {
        manifests ${new URL('../clusterset', import.meta.url).pathname}
        cluster_id cluster1
    }
}
`;

// The chain, outermost first. Nothing else can be used in this server's Corefile.
const server = createServer({
  directives: ['bind', 'ready', 'health', 'prometheus', 'errors', 'log', 'lighthouse'],
  corefile,
});
await server.start();
for (const { host, port, zones } of server.addresses) console.log(`${zones.join(' ')} on ${host || '*'}:${port}`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
process.on('SIGINT', () => void server.stop().then(() => process.exit(0)));
