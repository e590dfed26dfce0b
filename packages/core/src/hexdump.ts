/**
 * CoreDNS's `debug.Hexdump` (plugin/debug/pcap.go): a DNS message as text that Wireshark's
 * `text2pcap -i 17 -u 53,53` turns back into packets, for `[DEBUG]` lines about odd messages.
 */

/** Every line starts with it, so the dump can be cut out of a log. */
const PREFIX = 'debug: ';

/**
 * `wire` as CoreDNS dumps it: lines of 16 bytes in hex after a six-digit hex offset, each
 * prefixed `debug: `, then a last line with the length.
 *
 * @example
 * log.debug(`Wrong reply for id: ${id}, ${qname} ${qtype}\n${hexdump(reply)}`);
 * // debug: 000000 00 0a 81 80 00 01 00 00 00 00 00 00 07 65 78 61
 * // debug: 000010 6d 70 6c 65 03 6f 72 67 00 00 01 00 01
 * // debug: 00001d
 */
export function hexdump(wire: Uint8Array): string {
  let out = '';
  for (let i = 0; i < wire.length; i++) {
    if (i % 16 === 0) out += `${i === 0 ? '' : '\n'}${PREFIX}${offset(i)}`;
    out += ` ${wire[i]!.toString(16).padStart(2, '0')}`;
  }
  return `${out}\n${PREFIX}${offset(wire.length)}`;
}

function offset(n: number): string {
  return n.toString(16).padStart(6, '0');
}
