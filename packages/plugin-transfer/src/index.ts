/**
 * @foghorn/plugin-transfer: `transfer` answers AXFR/IXFR for zones another plugin of the server
 * block serves (one that offers a `Transferer`, such as *file*) and sends NOTIFY when they
 * change (CoreDNS's *transfer* plugin).
 * @module
 */
import { definePlugin } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import { longestMatch, Transfer } from './transfer.js';
import { sendNotifies } from './notify.js';
import { parseTransfer } from './setup.js';

export { hostPort, parseTransfer } from './setup.js';
export type { TransferOptions, XfrConfig } from './setup.js';
export { allowed, longestMatch, Transfer } from './transfer.js';
export { notifyMessage, sendNotifies } from './notify.js';

const plugin: PluginDefinition = definePlugin({
  name: 'transfer',
  setup(c) {
    const { xfrs } = parseTransfer(c);
    // The transferers of this block, found at startup as CoreDNS finds them among its handlers.
    c.onStartup(() => {
      for (const transferer of c.transferers()) {
        transferer.onZoneChange?.((zone) => {
          const x = longestMatch(xfrs, zone);
          if (!x) return;
          void sendNotifies(x, zone).then((errors) => {
            if (errors.length > 0) c.log.warning(`Failed sending notifies: ${errors.map((e) => e.message).join('\n')}`);
          });
        });
      }
    });
    c.addHandler((next) => new Transfer(xfrs, () => c.transferers(), c.log, next));
  },
});

export default plugin;
