/**
 * On-the-fly DNSSEC through the real `foghorn` CLI, judged by two real validators: BIND's `delv`
 * and ldns' `drill -S`. Every algorithm Foghorn's test keys come in (ECDSA P-256, Ed25519,
 * RSASHA256), as a CSK, as a KSK + ZSK pair and as two CSKs, with keys written by node:crypto in
 * BIND's format and, for one zone, by `ldns-keygen` itself. Each answer kind must validate with
 * the zone's keys as the trust anchor, and must not with a key the zone does not use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delv, drill, freeDnsPort, writeDnssecKey } from '@foghorn/testkit';
import type { TrustAnchor, Validation } from '@foghorn/testkit';
import { RunningCli } from '../cli-helpers.js';

/** One zone file for every signed zone: names are relative to the origin `file` gives. */
const zoneText = `$TTL 300
@       IN SOA  ns.example. admin.example. 1 7200 3600 1209600 300
        IN NS   ns.example.
        IN MX   10 mail
        IN A    192.0.2.1
www     IN A    192.0.2.80
        IN AAAA 2001:db8::80
alias   IN CNAME www
gone    IN CNAME nowhere
mail    IN A    192.0.2.25
`;

/** Every kind of answer: positive, the DNSKEY RRset, a CNAME, NODATA, NXDOMAIN, a dangling CNAME. */
const questions: readonly [string, string][] = [
  ['www', 'A'],
  ['@', 'DNSKEY'],
  ['@', 'MX'],
  ['alias', 'AAAA'],
  ['www', 'TXT'],
  ['nx', 'A'],
  ['gone', 'A'],
];

interface SignedZone {
  readonly zone: string;
  readonly keys: string[];
  readonly anchors: TrustAnchor[];
}

/** Reads a key pair ldns-keygen wrote as a trust anchor: the DNSKEY line of its `.key` file. */
function ldnsAnchor(base: string): TrustAnchor {
  const fields = readFileSync(`${base}.key`, 'utf8').split(';')[0]!.trim().split(/\s+/);
  // OWNER IN DNSKEY FLAGS 3 ALGORITHM KEY
  return { zone: fields[0]!, flags: Number(fields[3]), algorithm: Number(fields[5]) as 13, publicKey: Buffer.from(fields.slice(6).join(''), 'base64') };
}

test('signed answers of every algorithm and key split validate with delv and drill, and not with a wrong trust anchor', { timeout: 300_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-system-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'db.zone'), zoneText);

  const zones: SignedZone[] = [];
  for (const algorithm of [13, 15, 8] as const) {
    const csk = writeDnssecKey(dir, `csk${algorithm}.example`, { algorithm, ksk: true });
    zones.push({ zone: csk.zone, keys: [csk.base], anchors: [csk] });
    const ksk = writeDnssecKey(dir, `split${algorithm}.example`, { algorithm, ksk: true });
    const zsk = writeDnssecKey(dir, `split${algorithm}.example`, { algorithm });
    // The trust anchor is the KSK alone: the DNSKEY RRset it signs vouches for the ZSK.
    zones.push({ zone: ksk.zone, keys: [ksk.base, zsk.base], anchors: [ksk] });
  }
  const one = writeDnssecKey(dir, 'double.example', { ksk: true });
  const two = writeDnssecKey(dir, 'double.example', { algorithm: 15, ksk: true });
  zones.push({ zone: 'double.example.', keys: [one.base, two.base], anchors: [two] });
  // ldns-keygen prints the base name of the pair it wrote.
  const ldnsKsk = join(dir, execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', 'ldns.example'], { cwd: dir, encoding: 'utf8' }).trim());
  const ldnsZsk = join(dir, execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', 'ldns.example'], { cwd: dir, encoding: 'utf8' }).trim());
  zones.push({ zone: 'ldns.example.', keys: [ldnsKsk, ldnsZsk], anchors: [ldnsAnchor(ldnsKsk)] });

  const port = await freeDnsPort();
  const blocks = zones.map((z) => `${z.zone}:${port} {\n    bind 127.0.0.1\n    dnssec {\n        key file ${z.keys.join(' ')}\n    }\n    file ${join(dir, 'db.zone')}\n}\n`);
  writeFileSync(join(dir, 'Corefile'), blocks.join('\n'));
  const cli = new RunningCli(['-conf', join(dir, 'Corefile')], { cwd: dir });
  t.after(() => cli.kill('SIGTERM'));
  await cli.waitFor(new RegExp(`${zones.at(-1)!.zone.replace(/\./g, '\\.')}:${port}`));

  const stranger = writeDnssecKey(dir, 'stranger.example', { ksk: true });
  const failures: string[] = [];
  const expect = (what: string, result: Validation, validated: boolean): void => {
    if (result.validated !== validated) failures.push(`${what}: ${validated ? 'did not validate' : 'validated with a wrong anchor'}\n${result.output}`);
  };
  // Validators spend most of their time starting up: eight run at once.
  const jobs: (() => Promise<void>)[] = [];
  for (const z of zones) {
    const wrong: TrustAnchor[] = [{ ...stranger, zone: z.zone }];
    for (const [label, type] of questions) {
      const name = label === '@' ? z.zone : `${label}.${z.zone}`;
      jobs.push(async () => expect(`delv ${name} ${type}`, await delv(port, name, type, z.anchors), true));
      jobs.push(async () => expect(`drill ${name} ${type}`, await drill(port, name, type, z.anchors), true));
    }
    jobs.push(async () => expect(`delv www.${z.zone} A, wrong anchor`, await delv(port, `www.${z.zone}`, 'A', wrong), false));
    jobs.push(async () => expect(`drill www.${z.zone} A, wrong anchor`, await drill(port, `www.${z.zone}`, 'A', wrong), false));
    jobs.push(async () => expect(`delv nx.${z.zone} A, wrong anchor`, await delv(port, `nx.${z.zone}`, 'A', wrong), false));
  }
  const running = new Set<Promise<void>>();
  for (const job of jobs) {
    const p = job().finally(() => running.delete(p));
    running.add(p);
    if (running.size >= 8) await Promise.race(running);
  }
  await Promise.all(running);
  assert.deepEqual(failures, []);
});
