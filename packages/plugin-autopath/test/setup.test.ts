import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { setupTable } from '@foghorn/testkit';
import autopath, { parseAutopath } from '../src/index.js';
import type { AutoPathOptions } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-autopath-setup-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const resolv = join(dir, 'resolv.conf');
// setup_test.go's resolv.conf: `search` after `domain` wins.
writeFileSync(resolv, 'nameserver 1.2.3.4\ndomain foo.com\nsearch bar.com baz.com\noptions ndots:5\n');
const domainOnly = join(dir, 'domain.conf');
writeFileSync(domainOnly, 'nameserver 1.2.3.4\nsearch a.example\ndomain Foo.COM\n');

// CoreDNS plugin/autopath/setup_test.go, with the positions Foghorn adds.
setupTable<AutoPathOptions>('autopath', parseAutopath, {
  plugin: autopath,
  good: [
    { input: 'autopath @kubernetes', want: { zones: ['example.org.'], search: [], plugin: 'kubernetes' } },
    { input: 'autopath example.org @kubernetes', want: { zones: ['example.org.'], search: [], plugin: 'kubernetes' } },
    { input: 'autopath 10.0.0.0/8 @kubernetes', want: { zones: ['10.in-addr.arpa.'], search: [], plugin: 'kubernetes' } },
    { input: `autopath ${resolv}`, want: { zones: ['example.org.'], search: ['bar.com.', 'baz.com.', ''], plugin: '' } },
    { input: `autopath ${domainOnly}`, want: { zones: ['example.org.'], search: ['foo.com.', ''], plugin: '' } },
  ],
  bad: [
    { input: 'autopath kubernetes', error: 'Corefile:2:10 - Error during parsing: failed to parse "kubernetes": open kubernetes: no such file or directory' },
    { input: 'autopath', error: 'Corefile:2:1 - Error during parsing: no resolv-conf specified' },
    { input: 'autopath ""', error: 'Corefile:2:10 - Error during parsing: failed to parse "": open : no such file or directory' },
  ],
});
