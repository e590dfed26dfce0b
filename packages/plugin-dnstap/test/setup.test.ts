import { hostname } from 'node:os';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import { appVersion } from '@foghorn/core/wire';
import dnstap, { parseDnstap } from '../src/index.js';
import type { DnstapOptions } from '../src/index.js';

/** CoreDNS's plugin/dnstap/setup_test.go TestConfig, plus the positions of the errors. */
const defaults = {
  listen: false,
  full: false,
  writeBufferMiB: 1,
  queueMultiple: 1,
  identity: hostname(),
  version: `Foghorn-${appVersion()}`,
  extra: '',
  skipVerify: false,
  tls: undefined,
};
const unix = (address: string): DnstapOptions['endpoint'] => ({ proto: 'unix', address });
const tcp = (address: string): DnstapOptions['endpoint'] => ({ proto: 'tcp', address });

const good: GoodCase<DnstapOptions[]>[] = [
  { input: '    dnstap dnstap.sock full', want: [{ ...defaults, endpoint: unix('dnstap.sock'), full: true }] },
  { input: '    dnstap unix://dnstap.sock', want: [{ ...defaults, endpoint: unix('dnstap.sock') }] },
  { input: '    dnstap tcp://127.0.0.1:6000', want: [{ ...defaults, endpoint: tcp('127.0.0.1:6000') }] },
  { input: '    dnstap tcp://[::1]:6000', want: [{ ...defaults, endpoint: tcp('[::1]:6000') }] },
  { input: '    dnstap tcp://example.com:6000', want: [{ ...defaults, endpoint: tcp('example.com:6000') }] },
  { input: '    dnstap dnstap.sock full {\n        identity NAME\n        version VER\n    }', want: [{ ...defaults, endpoint: unix('dnstap.sock'), full: true, identity: 'NAME', version: 'VER' }] },
  {
    input: '    dnstap dnstap.sock full {\n        identity NAME\n        version VER\n        extra EXTRA\n    }',
    want: [{ ...defaults, endpoint: unix('dnstap.sock'), full: true, identity: 'NAME', version: 'VER', extra: 'EXTRA' }],
  },
  {
    input: '    dnstap dnstap.sock full {\n        identity NAME\n    }\n    dnstap tcp://127.0.0.1:6000 {\n        identity NAME2\n        extra EXTRA2\n    }',
    want: [
      { ...defaults, endpoint: unix('dnstap.sock'), full: true, identity: 'NAME' },
      { ...defaults, endpoint: tcp('127.0.0.1:6000'), identity: 'NAME2', extra: 'EXTRA2' },
    ],
  },
  { input: '    dnstap tls://127.0.0.1:6000 {\n        skipverify\n    }', want: [{ ...defaults, endpoint: { proto: 'tls', address: '127.0.0.1:6000' }, skipVerify: true }] },
  { input: '    dnstap dnstap.sock full 1024 2048', want: [{ ...defaults, endpoint: unix('dnstap.sock'), full: true, writeBufferMiB: 1024, queueMultiple: 2048 }] },
  // As in CoreDNS, a second argument other than `full` is ignored.
  { input: '    dnstap dnstap.sock fill', want: [{ ...defaults, endpoint: unix('dnstap.sock') }] },
  { input: '    dnstap listen tcp://127.0.0.1:6000 full', want: [{ ...defaults, listen: true, endpoint: tcp('127.0.0.1:6000'), full: true }] },
  { input: '    dnstap listen unix:///tmp/dnstap.sock', want: [{ ...defaults, listen: true, endpoint: unix('/tmp/dnstap.sock') }] },
  {
    input: '    dnstap listen tls://127.0.0.1:6000 {\n        tls cert.pem key.pem ca.pem\n        skipverify\n    }',
    want: [{ ...defaults, listen: true, endpoint: { proto: 'tls', address: '127.0.0.1:6000' }, skipVerify: true, tls: { cert: 'cert.pem', key: 'key.pem', ca: 'ca.pem' } }],
  },
];

const bad: BadCase[] = [
  { input: '    dnstap', error: "Corefile:2:5 - Error during parsing: Wrong argument count or unexpected line ending after 'dnstap'" },
  { input: '    dnstap {\n        identity NAME\n    }', error: "Corefile:2:12 - Error during parsing: Unexpected token '{', expecting argument" },
  { input: '    dnstap dnstap.sock {\n        identity\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'identity'" },
  { input: '    dnstap dnstap.sock {\n        version\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'version'" },
  { input: '    dnstap dnstap.sock {\n        extra\n    }', error: "Corefile:3:9 - Error during parsing: Wrong argument count or unexpected line ending after 'extra'" },
  { input: '    dnstap dnstap.sock {\n        identitiy NAME\n    }', error: "Corefile:3:9 - Error during parsing: unknown property 'identitiy'" },
  { input: '    dnstap dnstap.sock full 1025 1', error: 'Corefile:2:29 - Error during parsing: dnstap: MultipleTcpWriteBuf must be between 1 and 1024 (MiB units): 1025' },
  { input: '    dnstap dnstap.sock full 1 4097', error: 'Corefile:2:31 - Error during parsing: dnstap: MultipleQueue must be between 1 and 4096 (x10k messages): 4097' },
  { input: '    dnstap dnstap.sock full 0 10', error: 'Corefile:2:29 - Error during parsing: dnstap: MultipleTcpWriteBuf must be between 1 and 1024 (MiB units): 0' },
  { input: '    dnstap dnstap.sock full 10 0', error: 'Corefile:2:32 - Error during parsing: dnstap: MultipleQueue must be between 1 and 4096 (x10k messages): 0' },
  { input: '    dnstap dnstap.sock full x 10', error: 'Corefile:2:29 - Error during parsing: dnstap: invalid MultipleTcpWriteBuf "x": strconv.Atoi: parsing "x": invalid syntax' },
  { input: '    dnstap dnstap.sock full 10 y', error: 'Corefile:2:32 - Error during parsing: dnstap: invalid MultipleQueue "y": strconv.Atoi: parsing "y": invalid syntax' },
  { input: '    dnstap listen', error: 'Corefile:2:12 - Error during parsing: dnstap listen requires an endpoint argument' },
  { input: '    dnstap listen tcp://127.0.0.1:6000 {\n        tls cert.pem\n    }', error: 'Corefile:3:13 - Error during parsing: tls requires cert and key file paths' },
  { input: '    dnstap tcp://127.0.0.1:6000 {\n        tls cert.pem key.pem\n    }', error: 'Corefile:3:9 - Error during parsing: tls directive only valid for listeners' },
  { input: '    dnstap tcp://127.0.0.1', error: 'Corefile:2:12 - Error during parsing: address 127.0.0.1: missing port in address' },
];

setupTable('dnstap', parseDnstap, { good, bad, plugin: dnstap });
