/**
 * resolv.conf(5) as miekg/dns `ClientConfigFromReader` reads it, for the plugins that take one:
 * the `nameserver` addresses and the search list (`search`, or `domain`; the last line wins).
 */
import { normalizeZone } from './keys.js';

export interface ResolvConf {
  readonly nameservers: readonly string[];
  /** The search domains, lower case and fully qualified. */
  readonly search: readonly string[];
}

export function parseResolvConf(text: string): ResolvConf {
  const nameservers: string[] = [];
  let search: string[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    switch (fields[0]) {
      case 'nameserver':
        if (fields[1] !== undefined) nameservers.push(fields[1]);
        break;
      case 'domain':
        search = fields[1] === undefined ? [] : [fields[1]];
        break;
      case 'search':
        search = fields.slice(1);
        break;
    }
  }
  return { nameservers, search: search.map(normalizeZone) };
}
