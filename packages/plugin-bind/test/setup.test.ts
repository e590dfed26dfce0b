import type { NetworkInterfaceInfo } from 'node:os';
import type { Controller } from '@foghorn/core';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import { parseBind, resolveBindAddresses } from '../src/setup.js';

const interfaces: Record<string, NetworkInterfaceInfo[]> = {
  lo: [
    { address: '127.0.0.1', family: 'IPv4', netmask: '255.0.0.0', internal: true, mac: '00:00:00:00:00:00', cidr: '127.0.0.1/8' },
    { address: '::1', family: 'IPv6', netmask: 'ffff::', internal: true, mac: '00:00:00:00:00:00', cidr: '::1/128', scopeid: 0 },
  ],
  eth0: [{ address: 'fe80::1', family: 'IPv6', netmask: 'ffff::', internal: false, mac: '00:00:00:00:00:01', cidr: 'fe80::1/64', scopeid: 2 }],
};

/** The addresses the block's `bind` lines resolve to on a machine with `interfaces`. */
function addresses(c: Controller): string[] {
  return resolveBindAddresses(parseBind(c, interfaces), interfaces);
}

// `except` applies to its own line only.
const good: GoodCase<string[]>[] = [
  { input: 'bind 127.0.0.1', want: ['127.0.0.1'] },
  { input: 'bind 127.0.0.1 ::1', want: ['127.0.0.1', '::1'] },
  { input: 'bind 127.0.0.1\nbind ::1', want: ['127.0.0.1', '::1'] },
  { input: 'bind lo', want: ['127.0.0.1', '::1'] },
  { input: 'bind lo {\n except ::1\n}', want: ['127.0.0.1'] },
  { input: 'bind lo {\n except ::1\n}\nbind ::1', want: ['127.0.0.1', '::1'] },
  { input: 'bind eth0', want: ['fe80::1%eth0'] },
];

// Refused at the offending token.
const bad: BadCase[] = [
  { input: 'bind', error: 'Corefile:2:1 - Error during parsing: at least one address or interface name is expected' },
  { input: 'bind 127.0.0.1 nope0', error: 'Corefile:2:16 - Error during parsing: not a valid IP address or interface name: "nope0"' },
  { input: 'bind lo {\n only ::1\n}', error: 'Corefile:3:2 - Error during parsing: invalid option "only"' },
  { input: 'bind lo {\n except\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'except'" },
];

setupTable('bind', addresses, { good, bad, key: '.' });
