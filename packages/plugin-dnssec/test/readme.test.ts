import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import cache from '@foghorn/plugin-cache';
import file from '@foghorn/plugin-file';
import whoami from '@foghorn/plugin-whoami';
import { checkPluginReadme, directivesOf, writeDnssecKey } from '@foghorn/testkit';
import dnssec from '../src/index.js';

// The examples name their key pairs and zone file relative to the working directory: a KSK
// Kexample.org.+013+45330 and a ZSK Kexample.org.+013+10234 (tags as in the names; the keys are
// new ones) and db.example.org.
const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-readme-'));
process.chdir(dir);
after(() => {
  process.chdir(tmpdir());
  rmSync(dir, { recursive: true, force: true });
});
for (const [name, ksk] of [['Kexample.org.+013+45330', true], ['Kexample.org.+013+10234', false]] as const) {
  const key = writeDnssecKey(dir, 'example.org', { ksk });
  for (const extension of ['.key', '.private']) renameSync(`${key.base}${extension}`, join(dir, `${name}${extension}`));
}
writeFileSync('db.example.org', '$ORIGIN example.org.\n@ 3600 IN SOA ns.example.org. admin.example.org. 1 7200 3600 1209600 3600\n@ 3600 IN NS ns.example.org.\n');

checkPluginReadme(new URL('../../README.md', import.meta.url), {
  name: 'dnssec',
  sections: ['Metrics'],
  directives: directivesOf(cache, dnssec, file, whoami),
  minExamples: 2,
  metrics: { corefile: 'example.org:0 {\n dnssec\n whoami\n}\n' },
});
