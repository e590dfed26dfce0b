/** CoreDNS plugin/loadbalance/weighted_test.go TestWeightFileUpdate: the weight file's format and errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIp, parseWeights } from '@foghorn/plugin-loadbalance';

const key = (ip: string): string => String.fromCharCode(...parseIp(ip)!);
const table = (entries: Record<string, [string, number][]>): Map<string, Map<string, number>> =>
  new Map(Object.entries(entries).map(([name, weights]) => [name, new Map(weights.map(([ip, w]) => [key(ip), w]))]));

const good: [string, string, Map<string, Map<string, number>>][] = [
  ['empty', '', new Map()],
  ['one domain', '\nw1,example.org\n192.168.1.15 10\n192.168.1.14 20\n', table({ 'w1,example.org.': [['192.168.1.15', 10], ['192.168.1.14', 20]] })],
  [
    'two domains, comments and indentation',
    '\n# domain 1\nw1.example.org\n192.168.1.15   10\n192.168.1.14   20\n\n# domain 2\nw2.example.org\n # domain 3\n w3.example.org\n 192.168.2.16 11\n 192.168.2.15 12\n 192.168.2.14 13\n',
    table({
      'w1.example.org.': [['192.168.1.15', 10], ['192.168.1.14', 20]],
      'w2.example.org.': [],
      'w3.example.org.': [['192.168.2.16', 11], ['192.168.2.15', 12], ['192.168.2.14', 13]],
    }),
  ],
  // An IPv4-mapped address is the IPv4 address, as net.IP.Equal has it.
  ['mapped', 'a.example.org.\n::ffff:10.0.0.1 7\n2001:db8::1 8\n', table({ 'a.example.org.': [['10.0.0.1', 7], ['2001:db8::1', 8]] })],
];

for (const [name, text, want] of good) {
  test(`weight file: ${name}`, () => assert.deepEqual(parseWeights(text, 'wf'), want));
}

const bad: [string, string][] = [
  ['\nw1,example.org\n192.168.1.14\n192.168.1.15 20\n', 'wrong domain name:"192.168.1.14" in weight file wf. (Maybe a missing weight value?)'],
  ['\n# missing domain\n192.168.1.14 10\nw2,example.org\n192.168.2.14 11\n', 'missing domain name in weight file wf'],
  ['\nw1,example.org\n192.168.1.300 10\n', 'wrong IP address:"192.168.1.300" in weight file wf'],
  ['\nw1,example.org\n192.168.1.14 300\n', 'wrong weight value:"300" in weight file wf'],
  ['\nw1,example.org\n192.168.1.14 0\n', 'wrong weight value:"0" in weight file wf'],
  ['\nw1,example.org\n192.168.1.14 1 2\n', 'could not parse weight line:"192.168.1.14 1 2" in weight file wf'],
];

for (const [text, error] of bad) {
  test(`weight file error: ${error}`, () => assert.throws(() => parseWeights(text, 'wf'), { message: error }));
}
