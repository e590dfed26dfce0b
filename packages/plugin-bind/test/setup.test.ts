import { test } from 'node:test';
import type { NetworkInterfaceInfo } from 'node:os';
import assert from 'node:assert/strict';
import { Dispenser, parseCorefile } from '@foghorn/core';
import type { Controller } from '@foghorn/core';
import { parseBind, resolveBindAddresses } from '../src/setup.js';

const interfaces: Record<string, NetworkInterfaceInfo[]> = {
  lo: [
    { address: '127.0.0.1', family: 'IPv4', netmask: '255.0.0.0', internal: true, mac: '00:00:00:00:00:00', cidr: '127.0.0.1/8' },
    { address: '::1', family: 'IPv6', netmask: 'ffff::', internal: true, mac: '00:00:00:00:00:00', cidr: '::1/128', scopeid: 0 },
  ],
  eth0: [{ address: 'fe80::1', family: 'IPv6', netmask: 'ffff::', internal: false, mac: '00:00:00:00:00:01', cidr: 'fe80::1/64', scopeid: 2 }],
};

/** The bind tokens of a one-block Corefile, as the controller would hand them over. */
function controllerFor(body: string): Controller {
  const [block] = parseCorefile(`. {\n${body}\n}\n`);
  const tokens = block!.directives.filter((d) => d.name === 'bind').flatMap((d) => d.tokens);
  return new Dispenser(tokens, 'bind') as unknown as Controller;
}

test('bind lines resolve to addresses; except applies to its own line only', () => {
  const cases: [string, string[]][] = [
    ['bind 127.0.0.1', ['127.0.0.1']],
    ['bind 127.0.0.1 ::1', ['127.0.0.1', '::1']],
    ['bind 127.0.0.1\nbind ::1', ['127.0.0.1', '::1']],
    ['bind lo', ['127.0.0.1', '::1']],
    ['bind lo {\n except ::1\n}', ['127.0.0.1']],
    ['bind lo {\n except ::1\n}\nbind ::1', ['127.0.0.1', '::1']],
    ['bind eth0', ['fe80::1%eth0']],
  ];
  for (const [input, expected] of cases) {
    assert.deepEqual(resolveBindAddresses(parseBind(controllerFor(input), interfaces), interfaces), expected, input);
  }
});

test('bad bind lines are refused at the offending token', () => {
  const cases: [string, string][] = [
    ['bind', 'Corefile:2:1 - Error during parsing: at least one address or interface name is expected'],
    ['bind 127.0.0.1 nope0', 'Corefile:2:16 - Error during parsing: not a valid IP address or interface name: "nope0"'],
    ['bind lo {\n only ::1\n}', 'Corefile:3:2 - Error during parsing: invalid option "only"'],
    ['bind lo {\n except\n}', "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'except'"],
  ];
  for (const [input, message] of cases) {
    assert.throws(() => parseBind(controllerFor(input), interfaces), { message }, input);
  }
});
