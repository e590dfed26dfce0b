import { test } from 'node:test';
import { validateCorefile } from '@foghorn/core/server';
import { setupTable } from '@foghorn/testkit';
import type { BadCase, GoodCase } from '@foghorn/testkit';
import rrl, { parseRrl } from '@foghorn/plugin-rrl';
import type { RrlOptions } from '@foghorn/plugin-rrl';

const defaults: RrlOptions = {
  zones: ['example.org.'],
  windowMs: 15_000,
  ipv4PrefixLength: 24,
  ipv6PrefixLength: 56,
  responsesPerSecond: 0,
  nodataPerSecond: 0,
  nxdomainsPerSecond: 0,
  referralsPerSecond: 0,
  errorsPerSecond: 0,
  requestsPerSecond: 0,
  slipRatio: 0,
  maxTableSize: 100_000,
  reportOnly: false,
};
const rates = (perSecond: number): Partial<RrlOptions> => ({
  responsesPerSecond: perSecond,
  nodataPerSecond: perSecond,
  nxdomainsPerSecond: perSecond,
  referralsPerSecond: perSecond,
  errorsPerSecond: perSecond,
});

const good: GoodCase<RrlOptions>[] = [
  { input: 'rrl', want: defaults },
  { input: 'rrl {\n}', want: defaults },
  // The category rates follow responses-per-second unless set, as in coredns/rrl.
  { input: 'rrl {\n responses-per-second 10\n}', want: { ...defaults, ...rates(10) } },
  { input: 'rrl {\n responses-per-second 10\n nxdomains-per-second 0\n}', want: { ...defaults, ...rates(10), nxdomainsPerSecond: 0 } },
  { input: 'rrl {\n nodata-per-second 2.5\n}', want: { ...defaults, nodataPerSecond: 2.5 } },
  {
    input:
      'rrl {\n window 0.5\n ipv4-prefix-length 32\n ipv6-prefix-length 64\n responses-per-second 5\n nodata-per-second 4\n nxdomains-per-second 3\n referrals-per-second 2\n errors-per-second 1\n requests-per-second 100\n slip-ratio 2\n max-table-size 1000\n report-only\n}',
    want: {
      ...defaults,
      windowMs: 500,
      ipv4PrefixLength: 32,
      ipv6PrefixLength: 64,
      responsesPerSecond: 5,
      nodataPerSecond: 4,
      nxdomainsPerSecond: 3,
      referralsPerSecond: 2,
      errorsPerSecond: 1,
      requestsPerSecond: 100,
      slipRatio: 2,
      maxTableSize: 1000,
      reportOnly: true,
    },
  },
  // BIND's spellings of two options.
  { input: 'rrl {\n slip 1\n log-only\n}', want: { ...defaults, slipRatio: 1, reportOnly: true } },
  { input: 'rrl {\n max-table-size 0\n window 1e1\n}', want: { ...defaults, maxTableSize: 0, windowMs: 10_000 } },
  // Zones on the line replace the block's; one that does not parse is skipped, as CoreDNS does.
  { input: 'rrl A.Example.org. example.net {\n}', want: { ...defaults, zones: ['a.example.org.', 'example.net.'] } },
  { input: 'rrl .', key: '.', want: { ...defaults, zones: ['.'] } },
];

const bad: BadCase[] = [
  { input: 'rrl {\n window\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'window'" },
  { input: 'rrl {\n window x\n}', error: 'Corefile:3:9 - Error during parsing: x invalid value. strconv.ParseFloat: parsing "x": invalid syntax' },
  { input: 'rrl {\n window 0\n}', error: 'Corefile:3:9 - Error during parsing: window must be greater than zero' },
  { input: 'rrl {\n window -1\n}', error: 'Corefile:3:9 - Error during parsing: window must be greater than zero' },
  { input: 'rrl {\n ipv4-prefix-length 33\n}', error: 'Corefile:3:21 - Error during parsing: 33 must be between 1 and 32' },
  { input: 'rrl {\n ipv4-prefix-length 0\n}', error: 'Corefile:3:21 - Error during parsing: 0 must be between 1 and 32' },
  { input: 'rrl {\n ipv4-prefix-length /24\n}', error: 'Corefile:3:21 - Error during parsing: /24 invalid value. strconv.Atoi: parsing "/24": invalid syntax' },
  { input: 'rrl {\n ipv6-prefix-length 129\n}', error: 'Corefile:3:21 - Error during parsing: 129 must be between 1 and 128' },
  { input: 'rrl {\n ipv6-prefix-length 56 64\n}', error: "Corefile:3:24 - Error during parsing: Wrong argument count or unexpected line ending after '64'" },
  { input: 'rrl {\n responses-per-second -1\n}', error: 'Corefile:3:23 - Error during parsing: -1 cannot be negative' },
  { input: 'rrl {\n responses-per-second ten\n}', error: 'Corefile:3:23 - Error during parsing: ten invalid value. strconv.ParseFloat: parsing "ten": invalid syntax' },
  { input: 'rrl {\n nxdomains-per-second Inf\n}', error: 'Corefile:3:23 - Error during parsing: Inf invalid value. strconv.ParseFloat: parsing "Inf": invalid syntax' },
  { input: 'rrl {\n errors-per-second\n}', error: "Corefile:3:2 - Error during parsing: Wrong argument count or unexpected line ending after 'errors-per-second'" },
  { input: 'rrl {\n slip-ratio 11\n}', error: "Corefile:3:13 - Error during parsing: slip-ratio '11' must be between 0 and 10" },
  { input: 'rrl {\n slip-ratio half\n}', error: `Corefile:3:13 - Error during parsing: slip-ratio 'half' invalid value. strconv.Atoi: parsing "half": invalid syntax` },
  { input: 'rrl {\n slip -1\n}', error: "Corefile:3:7 - Error during parsing: slip '-1' must be between 0 and 10" },
  { input: 'rrl {\n max-table-size -5\n}', error: 'Corefile:3:17 - Error during parsing: -5 cannot be negative' },
  { input: 'rrl {\n max-table-size big\n}', error: 'Corefile:3:17 - Error during parsing: big invalid value. strconv.Atoi: parsing "big": invalid syntax' },
  { input: 'rrl {\n report-only yes\n}', error: "Corefile:3:14 - Error during parsing: Wrong argument count or unexpected line ending after 'yes'" },
  { input: 'rrl {\n responses-per-minute 10\n}', error: "Corefile:3:2 - Error during parsing: unknown property 'responses-per-minute'" },
  { input: 'rrl {\n responses-per-second 10\n}\nrrl', error: 'Corefile:5:1 - Error during parsing: this plugin can only be used once per Server Block' },
];

setupTable('rrl', parseRrl, { good, bad, plugin: rrl });

test('-validate sets up rrl in several blocks without serving', async () => {
  const corefile = 'example.org {\n rrl {\n  responses-per-second 10\n  slip-ratio 2\n }\n}\nexample.net {\n rrl example.net {\n  report-only\n }\n}\n';
  await validateCorefile({ path: 'Corefile', contents: corefile }, { directives: [{ name: 'rrl', load: () => rrl }] });
});
