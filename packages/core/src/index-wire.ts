/**
 * `@foghorn/core/wire`: **experimental**. The building blocks first-party plugins use below the
 * plugin API: reading and writing DNS wire bytes, record text, zone files, EDNS options, IP
 * addresses, response classification, and the `FOGHORN_DISABLE` switches. Useful to plugin
 * authors who build replies themselves, but not frozen: a minor version may change them, so a
 * plugin using them should pin core's minor version.
 *
 * @module
 */

// Reading a query.
export { emptyHeader, readQuery, Verdict } from './wire.js';
export type { QueryHeader } from './wire.js';
export { MAX_TCP_SIZE, MIN_UDP_SIZE } from './request.js';

// Names and records on the wire.
export { questionEnd, readName, skipName, skipRecord } from './wire.js';
export { encodeName, fqdn, nameLength, QUESTION_POINTER, questionOwned, writeAnswerHead, writeName } from './names.js';

// Writing replies as bytes.
export { writeOpt, writeReplyHead } from './wire.js';
export { encodeReply, packetRcode, wireRcode } from './response.js';
export { compressReply } from './compress.js';

// DNSSEC: key tags, and records and RRsets in the canonical form a signature covers (RFC 4034 §6).
export { canonicalRecord, canonicalRRset, keyTag } from './dnssec.js';

// EDNS.
export { EDNS_OPTION_EDE, edeOption, replyOpt, withReplyOption } from './edns.js';
export type { ReplyOptOptions } from './edns.js';

// Records as text, zone files, RFC 8482 answers.
export { formatRR, parseRR } from './rr.js';
export { parseZoneFile, zoneName } from './zonefile.js';
export type { ZoneFileOptions } from './zonefile.js';

// Zones: lookup and reply (*file*, *auto*, *secondary*), a zone file re-read on change.
export { LookupResult, serialNewer, serveZone, ZoneData } from './zone.js';
export type { ZoneLookup, ZoneServing } from './zone.js';
export { ZoneFile } from './zone-file.js';
export type { ZoneFileReload } from './zone-file.js';
export { RFC8482_TTL, rfc8482Hinfo } from './rfc8482.js';

// Type and class names, response classification (CoreDNS's `response.Typify`).
export { classNumber, ResponseType, responseClass, responseTypeName, typeNumber, typify } from './response-type.js';
export type { ResponseClass } from './response-type.js';

// IP addresses and host:port text.
export { formatIp, isIpv6Text, parseCidr, parseIp, to4, writeIpv4, writeIpv6 } from './ip.js';
export type { Cidr } from './ip.js';
export { networkContains, parseAddress, parseNetwork, parseClientAddress } from './cidr.js';
export type { AddressWords, Network } from './cidr.js';
export { hostPort, splitHostPort, stripZone } from './address.js';
export type { HostPort } from './address.js';

// Messages as CoreDNS's [DEBUG] lines dump them.
export { hexdump } from './hexdump.js';

// The Corefile parser (the *reload* plugin hashes the parsed file as CoreDNS does).
export { parseCorefile } from '@foghorn/corefile';
export type { ServerBlock } from '@foghorn/corefile';

// The server's name and version (*chaos*' `version.bind`).
export { APP_NAME, appVersion } from './app.js';

// FOGHORN_DISABLE: the hot-path switches.
export { FOGHORN_DISABLE, isDisabled } from './switches.js';
export type { HotPathSwitch } from './switches.js';

// resolv.conf files.
export { parseResolvConf } from './resolvconf.js';
export type { ResolvConf } from './resolvconf.js';
