import { setupTable } from '@foghorn/testkit';
import { appVersion } from '@foghorn/core/wire';
import chaos, { parseChaos } from '../src/index.js';
import type { ChaosOptions } from '../src/index.js';
import { owners } from '../src/owners.js';

const texts = (version: string, authors: readonly string[]): ChaosOptions => ({ version: Buffer.from(version), authors: authors.map((a) => Buffer.from(a)) });

// CoreDNS's plugin/chaos/setup_test.go, plus the defaults and the limits of setup.go.
setupTable('chaos', parseChaos, {
  plugin: chaos,
  good: [
    { input: 'chaos', want: texts(`Foghorn-${appVersion()}`, owners) },
    { input: 'chaos v2', want: texts('v2', owners) },
    { input: 'chaos v3 "Miek Gieben"', want: texts('v3', ['Miek Gieben']) },
    { input: 'chaos CoreDNS-001 zed info@coredns.io zed', want: texts('CoreDNS-001', ['info@coredns.io', 'zed']) },
    { input: `chaos ${'v'.repeat(300)} ${'a'.repeat(256)}`, want: texts('v'.repeat(255), ['a'.repeat(255)]) },
    { input: 'chaos v1\nchaos v2 {\n    ignored\n}', want: texts('v1', owners) },
  ],
  bad: [
    { input: 'chaos v2 {\n    unknown\n}', error: "Corefile:3:5 - Error during parsing: unknown property 'unknown'" },
    { input: 'chaos {\n    version v1\n}', error: "Corefile:3:5 - Error during parsing: unknown property 'version'" },
  ],
});
