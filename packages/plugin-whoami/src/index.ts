/**
 * whoami: answers every query with the client's address (A or AAAA) and its port and transport
 * (SRV `_udp.<qname>` / `_tcp.<qname>`) in the additional section, as CoreDNS's whoami.
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { Controller, PluginDefinition } from '@foghorn/core';
import { Whoami } from './handler.js';

/** Parses `whoami` (no arguments, no block) and adds the handler. */
export function setup(c: Controller): void {
  while (c.next()) {
    if (c.nextArg()) throw c.argError();
  }
  c.addHandler(() => new Whoami());
}

const plugin: PluginDefinition = definePlugin({ name: 'whoami', setup });
export default plugin;
export { Whoami };
