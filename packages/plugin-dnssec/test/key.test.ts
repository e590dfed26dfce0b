import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Answer } from 'dns-packet';
import { writeDnssecKey } from '@foghorn/testkit';
import { parseKey, readKeyFiles, signedData, signRRset } from '../src/index.js';
import type { RrsigFields, SigningKey } from '../src/index.js';

/** Verifies `signature` over `data` with the key's DNSKEY alone, as a validator would. */
function verifies(key: SigningKey, data: Buffer, signature: Buffer): boolean {
  const raw = key.dnskey.key;
  switch (key.algorithm) {
    case 13:
    case 14: {
      const size = raw.length / 2;
      const publicKey = createPublicKey({ key: { kty: 'EC', crv: size === 32 ? 'P-256' : 'P-384', x: raw.subarray(0, size).toString('base64url'), y: raw.subarray(size).toString('base64url') }, format: 'jwk' });
      return verify(size === 32 ? 'sha256' : 'sha384', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    }
    case 15:
      return verify(null, data, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }), signature);
    default: {
      const exponentLength = raw[0]!;
      const jwk = { kty: 'RSA', e: raw.subarray(1, 1 + exponentLength).toString('base64url'), n: raw.subarray(1 + exponentLength).toString('base64url') };
      return verify(key.algorithm === 10 ? 'sha512' : key.algorithm === 8 ? 'sha256' : 'sha1', data, createPublicKey({ key: jwk, format: 'jwk' }), signature);
    }
  }
}

/** RFC 4034 §3.2 `YYYYMMDDHHmmSS` as seconds. */
const time = (stamp: string): number => Date.UTC(+stamp.slice(0, 4), +stamp.slice(4, 6) - 1, +stamp.slice(6, 8), +stamp.slice(8, 10), +stamp.slice(10, 12), +stamp.slice(12, 14)) / 1000;

// RFC 8080 §6.1: Ed25519 signatures are deterministic, so ours must be the RFC's, byte for byte.
const rfc8080 = [
  {
    dnskey: 'example.com. 3600 IN DNSKEY 257 3 15 ( l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4= )',
    privateKey: 'ODIyNjAzODQ2MjgwODAxMjI2NDUxOTAyMDQxNDIyNjI=',
    tag: 3613,
    signature: 'oL9krJun7xfBOIWcGHi7mag5/hdZrKWw15jPGrHpjQeRAvTdszaPD+QLs3fx8A4M3e23mRZ9VrbpMngwcrqNAg==',
  },
  {
    dnskey: 'example.com. 3600 IN DNSKEY 257 3 15 ( zPnZ/QwEe7S8C5SPz2OfS5RR40ATk2/rYnE9xHIEijs= )',
    privateKey: 'DSSF3o0s0f+ElWzj9E/Osxw8hLpk55chkmx0LYN5WiY=',
    tag: 35217,
    signature: 'zXQ0bkYgQTEFyfLyi9QoiY6D8ZdYo4wyUhVioYZXFdT410QPRITQSqJSnzQoSm5poJ7gD7AQR0O7KuI5k2pcBg==',
  },
];

for (const [i, vector] of rfc8080.entries()) {
  test(`dnssec signs RFC 8080's Ed25519 example ${i + 1} with exactly its signature`, () => {
    const key = parseKey(vector.dnskey, 'rfc8080.key', `Private-key-format: v1.2\nAlgorithm: 15 (ED25519)\nPrivateKey: ${vector.privateKey}\n`, 'rfc8080.private');
    assert.equal(key.tag, vector.tag);
    assert.equal(key.isKsk, true);
    const mx: Answer = { name: 'example.com', type: 'MX', ttl: 3600, class: 'IN', data: { preference: 10, exchange: 'mail.example.com' } };
    const [sig] = signRRset([key], [mx], 'example.com.', 1438207200, 1440021600);
    assert.deepEqual({ ...sig!, signature: sig!.signature.toString('base64') }, {
      typeCovered: 'MX', algorithm: 15, labels: 2, originalTTL: 3600, expiration: 1440021600, inception: 1438207200, keyTag: vector.tag, signersName: 'example.com', signature: vector.signature,
    });
  });
}

// RFC 6605 §6: ECDSA signatures are random, so the RFC's must verify against the data we build,
// and ours against the DNSKEY.
const rfc6605 = [
  {
    algorithm: 13,
    dnskey: 'example.net. 3600 IN DNSKEY 257 3 13 ( GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edb krSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA== )',
    privateKey: 'Algorithm: 13 (ECDSAP256SHA256)\nPrivateKey: GU6SnQ/Ou+xC5RumuIUIuJZteXT2z0O/ok1s38Et6mQ=',
    tag: 55648,
    times: ['20100909100439', '20100812100439'],
    signature: 'qx6wLYqmh+l9oCKTN6qIc+bw6ya+KJ8oMz0YP107epXAyGmt+3SNruPFKG7tZoLBLlUzGGus7ZwmwWep666VCw==',
  },
  {
    algorithm: 14,
    dnskey: 'example.net. 3600 IN DNSKEY 257 3 14 ( xKYaNhWdGOfJ+nPrL8/arkwf2EY3MDJ+SErKivBVSum1 w/egsXvSADtNJhyem5RCOpgQ6K8X1DRSEkrbYQ+OB+v8 /uX45NBwY8rp65F6Glur8I/mlVNgF6W/qTI37m40 )',
    privateKey: 'Algorithm: 14 (ECDSAP384SHA384)\nPrivateKey: WURgWHCcYIYUPWgeLmiPY2DJJk02vgrmTfitxgqcL4vwW7BOrbawVmVe0d9V94SR',
    tag: 10771,
    times: ['20100909102025', '20100812102025'],
    signature: '/L5hDKIvGDyI1fcARX3z65qrmPsVz73QD1Mr5CEqOiLP95hxQouuroGCeZOvzFaxsT8Glr74hbavRKayJNuydCuzWTSSPdz7wnqXL5bdcJzusdnI0RSMROxxwGipWcJm',
  },
];

for (const vector of rfc6605) {
  test(`dnssec builds the data RFC 6605's algorithm ${vector.algorithm} example signed, and signs it verifiably`, () => {
    const key = parseKey(vector.dnskey, 'rfc6605.key', `Private-key-format: v1.2\n${vector.privateKey}\n`, 'rfc6605.private');
    assert.equal(key.tag, vector.tag);
    // The owner in mixed case: the canonical form lower-cases it (RFC 4034 §6.2).
    const a: Answer = { name: 'WWW.Example.NET', type: 'A', ttl: 300, class: 'IN', data: '192.0.2.1' };
    const fields: RrsigFields = { typeCovered: 'A', algorithm: vector.algorithm, labels: 3, originalTTL: 3600, expiration: time(vector.times[0]!), inception: time(vector.times[1]!), keyTag: vector.tag, signersName: 'example.net' };
    assert.ok(verifies(key, signedData(fields, [a]), Buffer.from(vector.signature, 'base64')), "the RFC's signature does not verify over our canonical data");
    const [sig] = signRRset([key], [a], 'example.net.', fields.inception, fields.expiration);
    const { signature, ...ours } = sig!;
    assert.deepEqual(ours, fields);
    assert.ok(verifies(key, signedData(fields, [a]), signature));
  });
}

test('dnssec signs an RRset in canonical order whatever order the records come in (RFC 4034 §6.3)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-key-'));
  try {
    const key = readKeyFiles(writeDnssecKey(dir, 'example.org', { algorithm: 15 }).base);
    const txt = (text: string): Answer => ({ name: 'example.org', type: 'TXT', ttl: 60, class: 'IN', data: [Buffer.from(text)] });
    const ns = (host: string): Answer => ({ name: 'Example.org', type: 'NS', ttl: 60, class: 'IN', data: host });
    // Ed25519 is deterministic: the same RRset in any order, case or duplication signs alike.
    const sign = (rrs: Answer[]): string => signRRset([key], rrs, 'example.org.', 1000, 2000)[0]!.signature.toString('base64');
    assert.equal(sign([txt('b'), txt('ab'), txt('a')]), sign([txt('a'), txt('ab'), txt('b'), txt('a')]));
    assert.equal(sign([ns('NS2.example.org'), ns('ns1.Example.org')]), sign([ns('ns1.example.org'), ns('ns2.example.org')]));
    assert.notEqual(sign([txt('a')]), sign([txt('A')]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("dnssec reads the key files ldns-keygen writes, and signs what their DNSKEY verifies", () => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-ldns-'));
  try {
    // ldns-keygen prints the base name of the pair it wrote: K<zone>+<alg>+<tag>.
    const made = [
      execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', 'example.org'], { cwd: dir, encoding: 'utf8' }).trim(),
      execFileSync('ldns-keygen', ['-a', 'ED25519', 'example.org'], { cwd: dir, encoding: 'utf8' }).trim(),
      execFileSync('ldns-keygen', ['-a', 'RSASHA256', '-b', '1024', 'example.org'], { cwd: dir, encoding: 'utf8' }).trim(),
    ];
    assert.equal(readdirSync(dir).filter((name) => name.endsWith('.private')).length, 3);
    for (const base of made) {
      const key = readKeyFiles(join(dir, base));
      const [, algorithm, tag] = /\+(\d{3})\+(\d{5})$/.exec(base)!;
      assert.equal(key.algorithm, Number(algorithm), base);
      assert.equal(key.tag, Number(tag), base);
      assert.equal(key.owner, 'example.org.');
      assert.equal(key.isKsk, base.includes('+013+'), base);
      const a: Answer = { name: 'www.example.org', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.1' };
      const [sig] = signRRset([key], [a], 'example.org.', 1000, 2000);
      assert.ok(verifies(key, signedData(sig!, [a]), sig!.signature), base);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('dnssec reads the key files testkit writes for every algorithm it makes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-testkit-'));
  try {
    for (const algorithm of [8, 13, 15] as const) {
      for (const ksk of [false, true]) {
        const written = writeDnssecKey(dir, 'example.org', { algorithm, ksk });
        const key = readKeyFiles(written.base);
        assert.deepEqual([key.algorithm, key.tag, key.isKsk, key.isZsk, key.ttl], [algorithm, written.tag, ksk, !ksk, 3600]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
