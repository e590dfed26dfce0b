/**
 * Setup of *autopath* (CoreDNS plugin/autopath/setup.go): `autopath [ZONE...] RESOLV-CONF`, the
 * search path of a resolv.conf file read at setup, or `@PLUGIN`, the plugin of the same server
 * block that gives each client's search path, found at startup.
 */
import { readFileSync } from 'node:fs';
import { AutoPathers, counterVec, errorMessage, HandlerNames, zonesFromArgs } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { parseResolvConf } from '@foghorn/core/wire';
import { AutoPath } from './handler.js';
import type { SearchSource } from './handler.js';

export interface AutoPathOptions {
  readonly zones: readonly string[];
  /** The resolv.conf's search domains and the '' sentinel; empty with `@PLUGIN`. */
  readonly search: readonly string[];
  /** The plugin named by `@PLUGIN`, else ''. */
  readonly plugin: string;
}

/** Go's error text of a failed open, as miekg/dns passes it on: `open PATH: no such file or directory`. */
function openError(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : errorMessage(error);
  return `open ${path}: ${reason}`;
}

/** Parses the directive; reads a RESOLV-CONF file (not `@PLUGIN`) for its search domains. */
export function parseAutopath(c: Controller): AutoPathOptions {
  let options: AutoPathOptions = { zones: [], search: [], plugin: '' };
  while (c.next()) {
    const args = c.remainingArgs();
    if (args.length < 1) throw c.error('no resolv-conf specified');
    const resolv = args[args.length - 1]!;
    let search: readonly string[] = [];
    let plugin = '';
    if (resolv.startsWith('@')) {
      plugin = resolv.slice(1);
    } else {
      let text: string;
      try {
        text = readFileSync(resolv, 'utf8');
      } catch (error) {
        throw c.error(`failed to parse ${JSON.stringify(resolv)}: ${openError(resolv, error)}`);
      }
      search = [...parseResolvConf(text).search, ''];
    }
    options = { zones: zonesFromArgs(c, args.slice(0, -1), { ignoreInvalid: true }), search, plugin };
  }
  return options;
}

/** Parses the directive, adds the handler, and at startup finds the `@PLUGIN` search paths. */
export function setup(c: Controller): void {
  const options = parseAutopath(c);
  const source: SearchSource = { search: options.search, searchFor: null };
  const pathers = c.use(AutoPathers);
  const handlers = c.use(HandlerNames);
  c.onStartup(() => {
    if (options.plugin === '') return;
    // As CoreDNS: a plugin not in the block means no autopath, one that cannot give a path is an error.
    if (!handlers.includes(options.plugin)) return;
    const pather = pathers.find((p) => p.name === options.plugin);
    if (pather === undefined) throw new Error(`${options.plugin} does not implement the AutoPather interface`);
    source.searchFor = (req) => pather.search(req);
  });
  const success = counterVec(c.registry, { name: 'coredns_autopath_success_total', help: 'Counter of requests that did autopath.', labelNames: ['server'] });
  c.addHandler((next) => new AutoPath(options.zones, source, success, next));
}
