// foghorn-plugin-hello: answers TXT queries for its zones with a greeting and passes every other
// query to the next plugin. A complete third-party Foghorn plugin in one file.
import { definePlugin, errOnce, Flags, isSubdomain, nextOrFailure, Rcode, replyTo, TYPE_TXT } from '@foghorn/core';

/**
 * Parses `hello [GREETING]`, used once per server block. Pure: tokens in, options out.
 * @param {import('@foghorn/core').Controller} c
 * @returns {{ greeting: string }}
 */
export function parseHello(c) {
  c.next(); // the directive name
  const args = c.remainingArgs();
  if (args.length > 1) throw c.argError();
  if (c.nextBlock()) throw c.error(`unknown property '${c.val()}'`);
  if (c.next()) throw errOnce(c);
  return { greeting: args[0] ?? 'hello' };
}

/** @implements {import('@foghorn/core').Handler} */
export class Hello {
  name = 'hello';

  /**
   * @param {string} greeting
   * @param {readonly string[]} zones
   * @param {import('@foghorn/core').Handler | null} next
   */
  constructor(greeting, zones, next) {
    this.greeting = greeting;
    this.zones = zones;
    this.next = next;
  }

  /**
   * @param {import('@foghorn/core').Request} req
   * @param {import('@foghorn/core').ResponseWriter} w
   */
  serveDNS(req, w) {
    if (req.qtype !== TYPE_TXT || !this.zones.some((zone) => isSubdomain(req.qname, zone))) {
      return nextOrFailure(this.name, this.next, req, w);
    }
    const reply = replyTo(req);
    reply.flags |= Flags.AA;
    reply.answers = [{ type: 'TXT', name: req.name, ttl: 60, data: this.greeting }];
    w.write(reply);
    return Rcode.NOERROR;
  }
}

export default definePlugin({
  name: 'hello',
  apiVersion: 1,
  // A data source: it answers before forward would send the query upstream.
  order: { before: 'forward' },
  setup(c) {
    const { greeting } = parseHello(c);
    const zones = c.zones;
    c.addHandler((next) => new Hello(greeting, zones, next));
  },
});
