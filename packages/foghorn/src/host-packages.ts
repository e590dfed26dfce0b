/**
 * One `@foghorn/core` per process. A third-party plugin declares `@foghorn/core` (and maybe
 * `@foghorn/corefile`) as a peer dependency, but it is installed next to the operator's Corefile,
 * where npm may have installed another copy of core or none at all. A resolve hook
 * (`module.register`, Node 20.6+) sends every import of these packages to the running Foghorn's
 * own copies, so the plugin runs on the core that loaded it and the peer-range check in
 * external.ts checks the core the plugin really gets.
 */
import { register } from 'node:module';

/** The packages a plugin shares with its host, and the host's copy of each. */
export const hostPackages: readonly string[] = ['@foghorn/core', '@foghorn/corefile'];

let registered = false;

/** Installs the resolve hook once per process; the host's copies are the ones this module sees. */
export function useHostPackages(): void {
  if (registered) return;
  registered = true;
  const roots = Object.fromEntries(hostPackages.map((name) => [name, import.meta.resolve(`${name}/package.json`)]));
  register('./host-packages-hook.js', import.meta.url, { data: { roots } });
}
