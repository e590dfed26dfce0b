import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { setupTable } from '@foghorn/testkit';
import dnssec, { parseDnssec } from '../src/index.js';
import type { Controller } from '@foghorn/core';

// CoreDNS's plugin/dnssec/setup_test.go: its key pair (RSASHA1, a ZSK) is written to the working
// directory as Kcluster.local.{key,private}, and as a KSK (flags 257) as ksk_Kcluster.local.*.
const keypub = `; This is a zone-signing key, keyid 45330, for cluster.local.
; Created: 20170901060531 (Fri Sep  1 08:05:31 2017)
; Publish: 20170901060531 (Fri Sep  1 08:05:31 2017)
; Activate: 20170901060531 (Fri Sep  1 08:05:31 2017)
cluster.local. IN DNSKEY 256 3 5 AwEAAcFpDv+Cb23kFJowu+VU++b2N1uEHi6Ll9H0BzLasFOdJjEEclCO q/KlD4682vOMXxJNN8ZwOyiCa7Y0TEYqSwWvhHyn3bHCwuy4I6fss4Wd 7Y9dU+6QTgJ8LimGG40Iizjc9zqoU8Q+q81vIukpYWOHioHoY7hsWBvS RSlzDJk3`;
const keypriv = `Private-key-format: v1.3
Algorithm: 5 (RSASHA1)
Modulus: wWkO/4JvbeQUmjC75VT75vY3W4QeLouX0fQHMtqwU50mMQRyUI6r8qUPjrza84xfEk03xnA7KIJrtjRMRipLBa+EfKfdscLC7Lgjp+yzhZ3tj11T7pBOAnwuKYYbjQiLONz3OqhTxD6rzW8i6SlhY4eKgehjuGxYG9JFKXMMmTc=
PublicExponent: AQAB
PrivateExponent: K5XyZFBPrjMVFX5gCZlyPyVDamNGrfSVXSIiMSqpS96BSdCXtmHAjCj4bZFPwkzi6+vs4tJN8p4ZifEVM0a6qwPZyENBrc2qbsweOXE6l8BaPVWFX30xvVRzGXuNtXxlBXE17zoHty5r5mRyRou1bc2HUS5otdkEjE30RiocQVk=
Prime1: 7RRFUxaZkVNVH1DaT/SV5Sb8kABB389qLwU++argeDCVf+Wm9BBlTrsz2U6bKlfpaUmYZKtCCd+CVxqzMyuu0w==
Prime2: 0NiY3d7Fa08IGY9L4TaFc02A721YcDNBBf95BP31qGvwnYsLFM/1xZwaEsIjohg8g+m/GpyIlvNMbK6pywIVjQ==
Exponent1: XjXO8pype9mMmvwrNNix9DTQ6nxfsQugW30PMHGZ78kGr6NX++bEC0xS50jYWjRDGcbYGzD+9iNujSScD3qNZw==
Exponent2: wkoOhLIfhUIj7etikyUup2Ld5WAbW15DSrotstg0NrgcQ+Q7reP96BXeJ79WeREFE09cyvv/EjdLzPv81/CbbQ==
Coefficient: ah4LL0KLTO8kSKHK+X9Ud8grYi94QSNdbX11ge/eFcS/41QhDuZRTAFv4y0+IG+VWd+XzojLsQs+jzLe5GzINg==
Created: 20170901060531
Publish: 20170901060531
Activate: 20170901060531
`;
// The same key pair as CoreDNS's dnssec_test.go's miek.nl key, but for the wrong public key.
const otherPriv = `Private-key-format: v1.3
Algorithm: 13 (ECDSAP256SHA256)
PrivateKey: /4BZk8AFvyW5hL3cOLSVxIp1RTqHSAEloWUxj86p3gs=
`;
const unsupported = 'cluster.local. IN DNSKEY 256 3 12 AwEAAcFpDv+Cb23kFJowu+VU++b2N1uEHi6Ll9H0BzLasFOdJjEEclCO';

const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-setup-'));
process.chdir(dir);
after(() => {
  process.chdir(tmpdir());
  rmSync(dir, { recursive: true, force: true });
});
writeFileSync('Kcluster.local.key', keypub);
writeFileSync('Kcluster.local.private', keypriv);
writeFileSync('ksk_Kcluster.local.key', keypub.replace('DNSKEY 256', 'DNSKEY 257'));
writeFileSync('ksk_Kcluster.local.private', keypriv);
writeFileSync('mismatch.key', keypub.replace('DNSKEY 256 3 5 AwEAAcFpDv+Cb23kFJowu+VU++b2N1uEHi6Ll9H0BzLasFOdJjEEclCO q/KlD4682vOMXxJNN8ZwOyiCa7Y0TEYqSwWvhHyn3bHCwuy4I6fss4Wd 7Y9dU+6QTgJ8LimGG40Iizjc9zqoU8Q+q81vIukpYWOHioHoY7hsWBvS RSlzDJk3', 'DNSKEY 256 3 13 0J8u0XJ9GNGFEBXuAmLu04taHG4BXPP3gwhetiOUMnGA+x09nqzgF5IYOyjWB7N3rXqQbnOSILhH1hnuyh7mmA=='));
writeFileSync('mismatch.private', otherPriv.replace('/4BZk8AFvyW5hL3cOLSVxIp1RTqHSAEloWUxj86p3gs=', 'GU6SnQ/Ou+xC5RumuIUIuJZteXT2z0O/ok1s38Et6mQ='));
writeFileSync('alg12.key', unsupported);
writeFileSync('alg12.private', otherPriv);
writeFileSync('wrongalg.key', keypub);
writeFileSync('wrongalg.private', otherPriv);
writeFileSync('nopublic.key', '; nothing but a comment\n');
writeFileSync('nopublic.private', otherPriv);

/** The options as a table compares them: each key by owner, tag and flags. */
function summary(c: Controller): object {
  const options = parseDnssec(c);
  return { ...options, keys: options.keys.map((key) => `${key.owner} ${key.tag} ${key.dnskey.flags}`) };
}

const zsk = 'cluster.local. 45330 256';
const ksk = 'cluster.local. 45331 257';
const defaults = { keys: [], capacity: 10000, splitKeys: false };
const position = (line: number, column: number, message: string): string => `Corefile:${line}:${column} - Error during parsing: ${message}`;
const argError = (line: number, column: number, after: string): string => position(line, column, `Wrong argument count or unexpected line ending after '${after}'`);

setupTable('dnssec', summary, {
  plugin: dnssec,
  good: [
    // CoreDNS's table: zones from the arguments or the server block, keys, capacity, split keys.
    { input: 'dnssec', want: { ...defaults, zones: ['example.org.'] } },
    { input: 'dnssec example.org', want: { ...defaults, zones: ['example.org.'] } },
    { input: 'dnssec 10.0.0.0/8', want: { ...defaults, zones: ['10.in-addr.arpa.'] } },
    { input: 'dnssec example.org {\n  cache_capacity 100\n}', want: { ...defaults, zones: ['example.org.'], capacity: 100 } },
    { input: 'dnssec cluster.local {\n  key file Kcluster.local\n}', want: { ...defaults, zones: ['cluster.local.'], keys: [zsk] } },
    { input: 'dnssec example.org cluster.local {\n  key file Kcluster.local\n}', want: { ...defaults, zones: ['example.org.', 'cluster.local.'], keys: [zsk] } },
    { input: 'dnssec cluster.local {\n  key file Kcluster.local\n  key file ksk_Kcluster.local\n}', want: { ...defaults, zones: ['cluster.local.'], keys: [zsk, ksk], splitKeys: true } },
    // Foghorn's: the file names CoreDNS accepts, several keys on a line, a key for a parent zone,
    // two KSKs (no split), and the block's zones when none is given.
    { input: 'dnssec cluster.local {\n  key file Kcluster.local.key ksk_Kcluster.local.private\n}', want: { ...defaults, zones: ['cluster.local.'], keys: [zsk, ksk], splitKeys: true } },
    { input: 'dnssec svc.cluster.local {\n  key file Kcluster.local\n}', want: { ...defaults, zones: ['svc.cluster.local.'], keys: [zsk] } },
    { input: 'dnssec {\n  key file ksk_Kcluster.local ksk_Kcluster.local.key\n}', key: 'cluster.local', want: { ...defaults, zones: ['cluster.local.'], keys: [ksk, ksk] } },
    { input: 'dnssec example.org {\n  cache_capacity 0\n}', want: { ...defaults, zones: ['example.org.'], capacity: 0 } },
  ],
  bad: [
    { input: 'dnssec example.org {\n  key file Kcluster.local\n}', error: position(3, 12, 'key cluster.local. (keyid: 45330) can not sign any of the zones') },
    { input: 'dnssec example.org {\n  key\n}', error: argError(3, 3, 'key') },
    { input: 'dnssec example.org {\n  key file\n}', error: argError(3, 7, 'file') },
    { input: 'dnssec\ndnssec', error: position(3, 1, 'this plugin can only be used once per Server Block') },
    { input: 'dnssec {\n  cache_capacity\n}', error: argError(3, 3, 'cache_capacity') },
    { input: 'dnssec {\n  cache_capacity many\n}', error: position(3, 18, 'strconv.Atoi: parsing "many": invalid syntax') },
    { input: 'dnssec {\n  cache_capacity -1\n}', error: position(3, 18, "cache_capacity must not be negative, got '-1'") },
    { input: 'dnssec {\n  ttl 5\n}', error: position(3, 3, "unknown property 'ttl'") },
    { input: 'dnssec {\n  key aws_secretsmanager Kexample.org.+013+45330\n}', error: position(3, 7, "key aws_secretsmanager is not supported: store the key pair in files and use 'key file'") },
    { input: 'dnssec {\n  key vault Kexample\n}', error: position(3, 7, "unknown key source 'vault', expected 'file'") },
    { input: 'dnssec {\n  key file Kmissing.key\n}', error: position(3, 12, 'open Kmissing.key: no such file or directory') },
    { input: 'dnssec cluster.local {\n  key file mismatch\n}', error: position(3, 12, 'mismatch.private: private key does not match the public key in mismatch.key') },
    { input: 'dnssec cluster.local {\n  key file alg12\n}', error: position(3, 12, 'alg12.key: unsupported algorithm 12') },
    { input: 'dnssec cluster.local {\n  key file wrongalg\n}', error: position(3, 12, "wrongalg.private: algorithm 13 (ECDSAP256SHA256) does not match the public key's 5 (RSASHA1)") },
    { input: 'dnssec cluster.local {\n  key file nopublic\n}', error: position(3, 12, 'nopublic.key: no public key found') },
  ],
});
