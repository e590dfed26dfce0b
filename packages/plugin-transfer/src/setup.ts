/**
 * `transfer [ZONE...] { to ADDRESS...; source ADDRESS }`, after CoreDNS's
 * `plugin/transfer/setup.go`.
 */
import { isIP } from 'node:net';
import { errorAt, errorMessage, Transferers, zonesFromArgs } from '@foghorn/core';
import { hostPort } from '@foghorn/core/wire';
import type { Controller } from '@foghorn/core';
import { sendNotifies } from './notify.js';
import { longestMatch, Transfer } from './transfer.js';

/** One `transfer` directive: the zones it answers for and who may transfer them. */
export interface XfrConfig {
  readonly zones: readonly string[];
  /** `*` (anyone) or `host:port` (`1.2.3.4:53`, `[2001:db8::1]:53`): allowed, and sent NOTIFY. */
  readonly to: readonly string[];
  /** Local address NOTIFY messages are sent from. */
  readonly source?: string;
}

export interface TransferOptions {
  readonly xfrs: readonly XfrConfig[];
}

/** Parses every `transfer` directive of the block. */
export function parseTransfer(c: Controller): TransferOptions {
  const xfrs: XfrConfig[] = [];
  while (c.next()) {
    const args = c.remainingArgs();
    const zones = zonesFromArgs(c, args);
    const to: string[] = [];
    let source: string | undefined;
    while (c.nextBlock()) {
      const property = c.val();
      switch (property) {
        case 'to': {
          const hosts = c.remainingArgTokens();
          if (hosts.length === 0) throw c.argError();
          for (const token of hosts) {
            const host = token.text;
            if (host === '*') {
              to.push(host);
              continue;
            }
            try {
              to.push(hostPort(host));
            } catch (error) {
              throw errorAt(token, errorMessage(error));
            }
          }
          break;
        }
        case 'source': {
          const values = c.remainingArgs();
          if (values.length !== 1) throw c.argError();
          if (source !== undefined) throw c.error('source already specified');
          if (isIP(values[0]!) === 0) throw c.error(`invalid source address "${values[0]}"`);
          source = values[0]!;
          break;
        }
        default:
          throw c.error(`unknown property "${property}"`);
      }
    }
    if (to.length === 0) throw c.error("'to' is required");
    xfrs.push(source === undefined ? { zones, to } : { zones, to, source });
  }
  return { xfrs };
}

/** Parses the directive; at startup subscribes to the block's zone owners for NOTIFY; adds the handler. */
export function setup(c: Controller): void {
  const { xfrs } = parseTransfer(c);
  // The transferers of this block, found at startup as CoreDNS finds them among its handlers.
  c.onStartup(() => {
    for (const transferer of c.use(Transferers)) {
      transferer.onZoneChange?.((zone) => {
        const x = longestMatch(xfrs, zone);
        if (!x) return;
        void sendNotifies(x, zone).then((errors) => {
          // Go's %q and %v of CoreDNS's line: "example.org." and [10.0.0.1:53 *].
          c.log.debug(`Sent notifies for zone ${JSON.stringify(zone)} to [${x.to.join(' ')}]`);
          if (errors.length > 0) c.log.warning(`Failed sending notifies: ${errors.map((e) => e.message).join('\n')}`);
        });
      });
    }
  });
  const transferers = c.use(Transferers);
  c.addHandler((next) => new Transfer(xfrs, transferers, c.log, next));
}
