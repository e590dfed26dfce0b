import type { Controller } from '@foghorn/core';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import transfer, { parseTransfer } from '@foghorn/plugin-transfer';
import type { XfrConfig } from '@foghorn/plugin-transfer';

const summarize = (c: Controller): XfrConfig[] => [...parseTransfer(c).xfrs];

/** CoreDNS's plugin/transfer/setup_test.go, with positions. */
const good: GoodCase<XfrConfig[]>[] = [
  {
    input: 'transfer example.net example.org {\n to 1.2.3.4 5.6.7.8:1053 [1::2]:34 [fe80::1%eth0]:53\n source 2001:db8::53\n}\ntransfer example.com example.edu {\n to * 1.2.3.4\n}',
    want: [
      { zones: ['example.net.', 'example.org.'], to: ['1.2.3.4:53', '5.6.7.8:1053', '[1::2]:34', '[fe80::1%eth0]:53'], source: '2001:db8::53' },
      { zones: ['example.com.', 'example.edu.'], to: ['*', '1.2.3.4:53'] },
    ],
  },
  { input: 'transfer {\n to 1.2.3.4 5.6.7.8:1053 [1::2]:34\n}', want: [{ zones: ['example.org.'], to: ['1.2.3.4:53', '5.6.7.8:1053', '[1::2]:34'] }] },
  { input: 'transfer {\n to *\n to 2001:db8::1\n}', key: 'example.org example.net', want: [{ zones: ['example.org.', 'example.net.'], to: ['*', '[2001:db8::1]:53'] }] },
];

const bad: BadCase[] = [
  { input: 'transfer example.net example.org {\n}', error: "Corefile:3:1 - Error during parsing: 'to' is required" },
  { input: 'transfer example.net example.org {\n invalid option\n}', error: 'Corefile:3:2 - Error during parsing: unknown property "invalid"' },
  { input: 'transfer example.net example.org {\n to 1.2.3.4\n source example.org\n}', error: 'Corefile:4:9 - Error during parsing: invalid source address "example.org"' },
  { input: 'transfer {\n to 1.2.3.4\n source 192.0.2.53\n source 2001:db8::53\n}', error: 'Corefile:5:9 - Error during parsing: source already specified' },
  { input: 'transfer example.com example.edu {\n to example.com 1.2.3.4\n}', error: "Corefile:3:5 - Error during parsing: must specify an IP address: `example.com'" },
  { input: 'transfer {\n to\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'to'" },
];

setupTable('transfer', summarize, { good, bad, plugin: transfer });
