/**
 * The OPT record of a reply (RFC 6891) and the Extended DNS Error option (RFC 8914), shared by the
 * writer's EDNS scrub and by plugins that attach an extended error to their own replies.
 */
import type { OptAnswer } from 'dns-packet';
import { EDNS_FLAG_DO } from './constants.js';
import type { Request } from './request.js';
import type { EdnsOption } from './wire.js';

/** RFC 8914 §2: the EDNS option code of an Extended DNS Error. */
export const EDNS_OPTION_EDE = 15;


export interface ReplyOptOptions {
  /** EDNS options the reply carries; none by default. */
  readonly options?: readonly EdnsOption[];
}

/**
 * The OPT record of a reply to `req`: the client's UDP size and DO bit echoed, version 0, no
 * extended rcode. Only for a query that had OPT (RFC 6891 §7 forbids it otherwise).
 */
export function replyOpt(req: Request, { options = [] }: ReplyOptOptions = {}): OptAnswer {
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: req.udpSize,
    extendedRcode: 0,
    ednsVersion: 0,
    flags: req.dnssecOk ? EDNS_FLAG_DO : 0,
    flag_do: req.dnssecOk,
    // dns-packet's option types list only the options it decodes; raw {code, data} encodes all.
    options: options as unknown as OptAnswer['options'],
  };
}

/** An Extended DNS Error option (RFC 8914 §2): INFO-CODE, then the optional UTF-8 EXTRA-TEXT. */
export function edeOption(code: number, text = ''): EdnsOption {
  const extra = Buffer.from(text, 'utf8');
  const data = Buffer.alloc(2 + extra.length);
  data.writeUInt16BE(code & 0xffff, 0);
  extra.copy(data, 2);
  return { code: EDNS_OPTION_EDE, data };
}
