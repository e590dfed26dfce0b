/**
 * The directive list: our plugin.cfg. It fixes the order of the chain; the Corefile never does.
 *
 * Each plugin "feels" everything listed after it and must not care about anything before it:
 * a query enters at the top and goes down until a plugin answers. Setup-only directives (reload,
 * bind, ready, health) are listed too, because their setups also run in this order.
 *
 * The order is CoreDNS v1.14.7's plugin.cfg restricted to the plugins Foghorn ships.
 */
import { readFileSync } from 'node:fs';
import type { PluginDefinition } from '@foghorn/core';
import type { DirectiveEntry } from '@foghorn/core/server';

interface Entry {
  readonly name: string;
  readonly packageName: string;
  /** Why the directive sits where it does. */
  readonly why: string;
}

const order: readonly Entry[] = [
  { name: 'root', packageName: '@foghorn/plugin-root', why: 'setup-only; first, as in plugin.cfg, so every plugin that reads a file sees the block\'s root directory in its setup' },
  { name: 'metadata', packageName: '@foghorn/plugin-metadata', why: 'first handler (after root in plugin.cfg): its collector is asked before the chain, and every plugin below reads or publishes metadata' },
  { name: 'cancel', packageName: '@foghorn/plugin-cancel', why: 'after metadata, as in plugin.cfg: gives the query its deadline before any plugin below could wait on I/O' },
  { name: 'timeouts', packageName: '@foghorn/plugin-timeouts', why: 'setup-only; sets the connection timeouts of the block, read when its listeners are planned' },
  { name: 'reload', packageName: '@foghorn/plugin-reload', why: 'setup-only; watches the Corefile, first so a broken reload is noticed before anything else' },
  { name: 'nsid', packageName: '@foghorn/plugin-nsid', why: 'wraps the writer before everything below, so every reply to an NSID query, cache hits and errors written by plugins included, carries the identifier' },
  { name: 'bufsize', packageName: '@foghorn/plugin-bufsize', why: 'lowers the EDNS UDP size before any plugin below reads it or forward sends the query on (cancel and nsid above do not read it)' },
  { name: 'bind', packageName: '@foghorn/plugin-bind', why: 'setup-only; decides the listen addresses before any listener is planned' },
  { name: 'debug', packageName: '@foghorn/plugin-debug', why: 'setup-only; marks the block for [DEBUG] lines and panic stacks, read when the configuration starts' },
  { name: 'trace', packageName: '@foghorn/plugin-trace', why: 'near the top, below bufsize as in plugin.cfg: the span of a query covers the chain below it, and each plugin below gets a span of its own' },
  { name: 'ready', packageName: '@foghorn/plugin-ready', why: 'setup-only; before health so /ready closes before the lameduck wait on shutdown' },
  { name: 'health', packageName: '@foghorn/plugin-health', why: 'setup-only; its lameduck shutdown hook runs after ready closed' },
  { name: 'pprof', packageName: '@foghorn/plugin-pprof', why: 'setup-only; serves /debug/pprof, its place is only the order of setups (after health, as in plugin.cfg)' },
  { name: 'prometheus', packageName: '@foghorn/plugin-prometheus', why: 'outermost handler: counts every query and reply, including errors below' },
  { name: 'errors', packageName: '@foghorn/plugin-errors', why: 'sees the error of every plugin below it' },
  { name: 'log', packageName: '@foghorn/plugin-log', why: 'logs the final reply of everything below, after errors so both agree on the rcode' },
  { name: 'dnstap', packageName: '@foghorn/plugin-dnstap', why: 'below log, above every plugin that answers: taps each client query before forward can send it upstream, and offers its sinks to forward' },
  {
    name: 'rrl',
    packageName: '@foghorn/plugin-rrl',
    why:
      'limits the UDP reply as it leaves the chain, so it wraps the writer of everything that answers: it sees the final rcode and shape (after cache, rewrite, loadbalance) and every answerer (any, chaos, local, dns64 included, which coredns/rrl, placed before acl, lets through); below log, errors and prometheus, which then record what was really sent (nothing, or the truncated slip)',
  },
  { name: 'local', packageName: '@foghorn/plugin-local', why: 'answers localhost and the loopback reverse zones before anything below could send them out; logged and counted above' },
  { name: 'dns64', packageName: '@foghorn/plugin-dns64', why: 'sees the final AAAA reply of everything below (cache included) and asks the same plugins for the A records it synthesises from' },
  { name: 'any', packageName: '@foghorn/plugin-any', why: 'answers ANY (RFC 8482) before any data source would look the name up; logged and counted above' },
  { name: 'chaos', packageName: '@foghorn/plugin-chaos', why: 'answers CH TXT version.bind & co. before acl and the data sources, which serve class IN' },
  { name: 'loadbalance', packageName: '@foghorn/plugin-loadbalance', why: 'reorders every positive reply from below, cache hits included, so each client sees a fresh order' },
  { name: 'rewrite', packageName: '@foghorn/plugin-rewrite', why: 'changes the question before acl, cache and the data sources see it (v1.14.7 moved it above acl and cache), and reverts the reply below log so log shows what the client gets' },
  { name: 'autopath', packageName: '@foghorn/plugin-autopath', why: 'after rewrite (it walks the rewritten name) and before acl and cache, as in plugin.cfg: each try of the search path goes through acl, the cache and the data sources, and the reply it builds is never cached under the asked name' },
  { name: 'acl', packageName: '@foghorn/plugin-acl', why: 'blocks queries before they reach the cache or any data source' },
  { name: 'cache', packageName: '@foghorn/plugin-cache', why: 'answers repeats before any data source does work' },
  { name: 'header', packageName: '@foghorn/plugin-header', why: 'below cache, as in plugin.cfg: its response flags are what the cache keeps, and its query flags are what the data sources and forward see' },
  { name: 'dnssec', packageName: '@foghorn/plugin-dnssec', why: 'signs what every data source below writes (file, template, kubernetes, forward); after cache, which then keeps the signed replies so a repeat costs no signing at all' },
  { name: 'tls', packageName: '@foghorn/plugin-tls', why: 'setup-only; loads the certificate of tls:// and https:// blocks (CoreDNS v1.14.7 lists it after dnssec)' },
  { name: 'minimal', packageName: '@foghorn/plugin-minimal', why: 'strips the replies of the data sources below it, before cache (above) keeps them, as plugin.cfg places it after dnssec' },
  { name: 'template', packageName: '@foghorn/plugin-template', why: 'synthesised answers after the cache (so they are cached) and before the data sources it falls through to' },
  { name: 'transfer', packageName: '@foghorn/plugin-transfer', why: 'after cache (a transfer is never cached) and before every zone owner, so it takes AXFR/IXFR before file or lighthouse would refuse them' },
  { name: 'hosts', packageName: '@foghorn/plugin-hosts', why: 'static names answered after the cache and before the Kubernetes data sources, as plugin.cfg puts it before kubernetes' },
  { name: 'route53', packageName: '@foghorn/plugin-route53', why: 'zones read from AWS Route 53, answered from memory; after hosts and before kubernetes and the other data sources, as plugin.cfg puts it' },
  { name: 'k8s_external', packageName: '@foghorn/plugin-k8s-external', why: "a zone of its own from the kubernetes plugin's index; before kubernetes as in plugin.cfg, so a kubernetes zone of `.` does not swallow the external zone's names" },
  { name: 'kubernetes', packageName: '@foghorn/plugin-kubernetes', why: 'cluster DNS; CoreDNS lists it after cache (and hosts, k8s_external) so cached answers skip it, and before file, etcd, loop and forward, which get what it falls through' },
  { name: 'lighthouse', packageName: '@foghorn/plugin-lighthouse', why: 'authoritative data source for clusterset zones; falls through to forward' },
  { name: 'file', packageName: '@foghorn/plugin-file', why: 'authoritative data from zone files; after transfer, which streams its zones, and before forward, which gets what it does not serve' },
  { name: 'auto', packageName: '@foghorn/plugin-auto', why: 'zone files picked up from a directory: file\'s answers for zones found at run time, so after file (plugin.cfg) and transfer, which streams them' },
  { name: 'secondary', packageName: '@foghorn/plugin-secondary', why: 'zones transferred from a primary: after transfer, which streams them on, and file and auto (plugin.cfg), before forward, which gets what it does not serve' },
  { name: 'etcd', packageName: '@foghorn/plugin-etcd', why: 'SkyDNS data from etcd; after file (plugin.cfg: file, auto, secondary, etcd) and before loop and forward, which get what it falls through' },
  { name: 'loop', packageName: '@foghorn/plugin-loop', why: 'just before forward: counts its own startup probe coming back through forward, and sees nothing an authoritative plugin above answered' },
  { name: 'forward', packageName: '@foghorn/plugin-forward', why: 'last resort: hands what nobody above answered to upstream resolvers' },
  { name: 'grpc', packageName: '@foghorn/plugin-grpc', why: 'after forward, as in plugin.cfg: proxies over gRPC what nobody above answered (a forward for other names passes the rest on to it)' },
  { name: 'erratic', packageName: '@foghorn/plugin-erratic', why: 'test answerer that never calls next: after forward, before whoami, as in plugin.cfg' },
  { name: 'whoami', packageName: '@foghorn/plugin-whoami', why: 'debug answerer; never calls next, so it sits at the end' },
  { name: 'on', packageName: '@foghorn/plugin-on', why: 'no handler: lifecycle commands; last, as in plugin.cfg, so its shutdown commands run after every other plugin\'s shutdown hooks' },
  { name: 'view', packageName: '@foghorn/plugin-view', why: 'last, as in plugin.cfg: core applies its filter before the chain, so the place only orders its setup; its handler just passes queries on' },
];

/** Directive names that are aliases of another (CoreDNS calls the prometheus plugin `metrics` too). */
export const aliases: Readonly<Record<string, string>> = { metrics: 'prometheus' };

/** The ordered list with the reason for each position, for docs and `-plugins`. */
export const directiveOrder: readonly Entry[] = order;

async function importPlugin(packageName: string): Promise<PluginDefinition> {
  const module = (await import(packageName)) as { default?: PluginDefinition };
  if (!module.default) throw new Error(`package ${packageName} has no default export`);
  return module.default;
}

/**
 * The standard directive list. A plugin's package is imported only when a Corefile uses the
 * directive, so unused plugins cost nothing (lighthouse's Kubernetes client in particular).
 */
export function standardDirectives(): DirectiveEntry[] {
  const entries: DirectiveEntry[] = [];
  for (const entry of order) {
    const load = (): Promise<PluginDefinition> => importPlugin(entry.packageName);
    const version = packageVersion(entry.packageName);
    entries.push({ name: entry.name, packageName: entry.packageName, version, load });
    for (const [alias, target] of Object.entries(aliases)) {
      if (target === entry.name) entries.push({ name: alias, packageName: entry.packageName, version, load });
    }
  }
  return entries;
}

function packageVersion(packageName: string): string {
  const url = new URL(import.meta.resolve(`${packageName}/package.json`));
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}
