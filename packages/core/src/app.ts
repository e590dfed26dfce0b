/**
 * The server's name and version: CoreDNS's `caddy.AppName` and `caddy.AppVersion`, which its
 * version banner and the *chaos* plugin's default `version.bind` answer (`CoreDNS-1.14.7`) use.
 */
import { readFileSync } from 'node:fs';

/** The server's name, the first half of the version banner (`Foghorn-0.1.0`). */
export const APP_NAME = 'Foghorn';

let version: string | undefined;

/** The version of @foghorn/core, which the distribution releases in lockstep; read once. */
export function appVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
