/**
 * A backend in the chain, after the plugin under test: answers from a table keyed by question,
 * counts and records what reaches it, and can be switched down (SERVFAIL returned without a
 * reply, the way *forward* fails when no upstream is healthy). For plugins that sit in front of
 * a data source (*cache*, *log*, *acl*, *errors*).
 *
 * @example
 * const backend = new FakeBackend();
 * backend.table.set('a.example. A', answerWith('a.example. 300 IN A 192.0.2.1'));
 * const server = await startServer('.:0 {\n bind 127.0.0.1\n cache\n backend\n}\n', { directives: directivesOf(bind, cache, backend.plugin()) });
 */
import type { Packet } from 'dns-packet';
import { PluginError, Rcode, replyTo } from '@foghorn/core';
import type { PluginDefinition, Request, ResponseWriter } from '@foghorn/core';
import { testPlugin } from './index.js';
import { rr } from './records.js';

/** What the backend answers for one question: a message, or `'down'` to fail. */
export type Answerer = (req: Request) => Packet | 'down' | Promise<Packet | 'down'>;

export class FakeBackend {
  /** Queries that reached the backend. */
  count = 0;
  /** When true, every query fails with SERVFAIL and nothing written. */
  down = false;
  readonly seen: Request[] = [];
  /** Answerers by `QNAME QTYPE` (`a.example. A`), or `* QTYPE` for any name. */
  readonly table = new Map<string, Answerer>();

  /** The directive, named `name` (`backend` unless said otherwise); it takes any arguments. */
  plugin(name = 'backend'): PluginDefinition {
    return testPlugin(name, () => ({ name, serveDNS: (req, w) => this.serve(name, req, w) }));
  }

  private async serve(name: string, req: Request, w: ResponseWriter): Promise<number> {
    this.count++;
    this.seen.push(req);
    if (this.down) throw new PluginError(`plugin/${name}: down`, { rcode: Rcode.SERVFAIL });
    const answerer = this.table.get(`${req.qname} ${req.type}`) ?? this.table.get(`* ${req.type}`);
    if (answerer === undefined) throw new PluginError(`plugin/${name}: no answer`, { rcode: Rcode.SERVFAIL });
    const msg = await answerer(req);
    if (msg === 'down') throw new PluginError(`plugin/${name}: down`, { rcode: Rcode.SERVFAIL });
    w.write(msg);
    return 0;
  }
}

/** An answerer replying NOERROR with these zone-file records in the answer section. */
export function answerWith(...records: string[]): Answerer {
  return (req) => ({ ...replyTo(req), answers: records.map(rr) });
}
