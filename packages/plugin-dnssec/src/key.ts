/**
 * DNSSEC keys as BIND's `dnssec-keygen` (and `ldns-keygen`) write them: the public key as a
 * DNSKEY record in `K<zone>+<alg>+<tag>.key`, the private key in `Private-key-format: v1.x`
 * fields in `.private` (CoreDNS's `ParseKeyFile`, miekg/dns's `ReadPrivateKey`). Signing is
 * node:crypto's, with the key imported once as a KeyObject.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject, JsonWebKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { keyTag, parseZoneFile } from '@foghorn/core/wire';

/** The DNSKEY flags bits (RFC 4034 §2.1.1). */
const ZONE_KEY = 0x0100;
const SEP = 0x0001;

/** How node:crypto signs for one DNSSEC algorithm number (RFC 8624 §3.1). */
interface Algorithm {
  readonly name: string;
  /** The digest handed to `crypto.sign`; null for EdDSA, which hashes itself. */
  readonly hash: string | null;
  readonly kind: 'RSA' | 'EC' | 'OKP';
  /** The JWK curve of EC and OKP keys. */
  readonly curve?: string;
  /** Bytes of one coordinate (EC) or of the key (OKP). */
  readonly size?: number;
}

/** The algorithms Foghorn signs with: RSA (RFC 3110, 5702), ECDSA (RFC 6605), EdDSA (RFC 8080). */
export const algorithms: ReadonlyMap<number, Algorithm> = new Map<number, Algorithm>([
  [5, { name: 'RSASHA1', hash: 'sha1', kind: 'RSA' }],
  [7, { name: 'RSASHA1NSEC3SHA1', hash: 'sha1', kind: 'RSA' }],
  [8, { name: 'RSASHA256', hash: 'sha256', kind: 'RSA' }],
  [10, { name: 'RSASHA512', hash: 'sha512', kind: 'RSA' }],
  [13, { name: 'ECDSAP256SHA256', hash: 'sha256', kind: 'EC', curve: 'P-256', size: 32 }],
  [14, { name: 'ECDSAP384SHA384', hash: 'sha384', kind: 'EC', curve: 'P-384', size: 48 }],
  [15, { name: 'ED25519', hash: null, kind: 'OKP', curve: 'Ed25519', size: 32 }],
  [16, { name: 'ED448', hash: null, kind: 'OKP', curve: 'Ed448', size: 57 }],
]);

/** The DNSKEY record of a key, as dns-packet writes it. */
export interface DnskeyData {
  readonly flags: number;
  readonly algorithm: number;
  readonly key: Buffer;
}

/** A key pair that signs RRsets: CoreDNS's `DNSKEY` (public record, tag, signer). */
export class SigningKey {
  /** RFC 4034 Appendix B key tag. */
  readonly tag: number;

  constructor(
    /** The key file's owner name: lower-case, fully qualified. */
    readonly owner: string,
    /** TTL of the DNSKEY record in the key file; 3600 when it has none (miekg/dns). */
    readonly ttl: number,
    readonly dnskey: DnskeyData,
    private readonly privateKey: KeyObject,
  ) {
    this.tag = keyTag(dnskey.flags, dnskey.algorithm, dnskey.key);
  }

  get algorithm(): number {
    return this.dnskey.algorithm;
  }

  /** A zone key with the SEP bit set: signs only the DNSKEY RRset when keys are split (RFC 4034 §2.1.1). */
  get isKsk(): boolean {
    return (this.dnskey.flags & ZONE_KEY) !== 0 && (this.dnskey.flags & SEP) !== 0;
  }

  /** A zone key without the SEP bit: signs everything else when keys are split. */
  get isZsk(): boolean {
    return (this.dnskey.flags & ZONE_KEY) !== 0 && (this.dnskey.flags & SEP) === 0;
  }

  /** The signature of `data` as RRSIG's Signature field wants it (RFC 3110, RFC 6605 §4, RFC 8080 §4). */
  sign(data: Buffer): Buffer {
    const algorithm = algorithms.get(this.dnskey.algorithm)!;
    if (algorithm.kind === 'EC') return sign(algorithm.hash, data, { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return sign(algorithm.hash, data, this.privateKey);
  }
}

/** The text Go's os.Open error has after the path: `no such file or directory`. */
function openError(path: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const cause = /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1] ?? message;
  return new Error(`open ${path}: ${cause}`, { cause: error });
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw openError(path, error);
  }
}

/**
 * Reads the key pair `base.key` + `base.private` (CoreDNS's `ParseKeyFile`), and checks that the
 * private key signs what the public key verifies.
 */
export function readKeyFiles(base: string): SigningKey {
  const publicFile = `${base}.key`;
  const publicText = read(publicFile);
  const privateFile = `${base}.private`;
  return parseKey(publicText, publicFile, read(privateFile), privateFile);
}

/** A key pair from the text of its two files; the file names are for errors. */
export function parseKey(publicText: string, publicFile: string, privateText: string, privateFile: string): SigningKey {
  const records = parseZoneFile(publicText, { origin: '.', file: publicFile, readFile: () => '' });
  const record = records.find((rr) => rr.type === 'DNSKEY');
  if (record === undefined || record.type !== 'DNSKEY') throw new Error(`${publicFile}: no public key found`);
  const dnskey = record.data as DnskeyData;
  const algorithm = algorithms.get(dnskey.algorithm);
  if (algorithm === undefined) throw new Error(`${publicFile}: unsupported algorithm ${dnskey.algorithm}`);
  const fields = privateFields(privateText, privateFile);
  const declared = Number(/^\d+/.exec(fields.get('Algorithm') ?? '')?.[0] ?? NaN);
  if (declared !== dnskey.algorithm) {
    throw new Error(`${privateFile}: algorithm ${fields.get('Algorithm') ?? 'missing'} does not match the public key's ${dnskey.algorithm} (${algorithm.name})`);
  }
  const publicJwk = publicKeyJwk(algorithm, dnskey.key, publicFile);
  const privateKey = privateKeyObject(algorithm, fields, publicJwk, privateFile);
  checkPair(algorithm, privateKey, publicJwk, privateFile, publicFile);
  const owner = record.name === '.' ? '.' : `${record.name.toLowerCase()}.`;
  return new SigningKey(owner, record.ttl ?? 3600, dnskey, privateKey);
}

/** `Field: value` lines; a `Private-key-format` line must come first among them. */
function privateFields(text: string, file: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z0-9-]+):\s*(.*?)\s*$/.exec(line);
    if (match) fields.set(match[1]!, match[2]!);
  }
  if (!/^v1\.\d+$/.test(fields.get('Private-key-format') ?? '')) throw new Error(`${file}: not a private key file (no 'Private-key-format: v1.x' line)`);
  return fields;
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

/** The DNSKEY's public key field as a JWK (RFC 3110 §2, RFC 6605 §4, RFC 8080 §3). */
function publicKeyJwk(algorithm: Algorithm, key: Buffer, file: string): JsonWebKey {
  switch (algorithm.kind) {
    case 'EC': {
      const size = algorithm.size!;
      if (key.length !== 2 * size) throw new Error(`${file}: ${algorithm.name} public key must be ${2 * size} bytes, got ${key.length}`);
      return { kty: 'EC', crv: algorithm.curve!, x: base64url(key.subarray(0, size)), y: base64url(key.subarray(size)) };
    }
    case 'OKP':
      if (key.length !== algorithm.size) throw new Error(`${file}: ${algorithm.name} public key must be ${algorithm.size!} bytes, got ${key.length}`);
      return { kty: 'OKP', crv: algorithm.curve!, x: base64url(key) };
    case 'RSA': {
      // One byte of exponent length, or a zero and two bytes for exponents over 255 bytes.
      let at = 1;
      let exponentLength = key[0] ?? 0;
      if (exponentLength === 0) {
        exponentLength = key.length >= 3 ? key.readUInt16BE(1) : 0;
        at = 3;
      }
      if (exponentLength === 0 || at + exponentLength >= key.length) throw new Error(`${file}: bad ${algorithm.name} public key`);
      return { kty: 'RSA', e: base64url(key.subarray(at, at + exponentLength)), n: base64url(key.subarray(at + exponentLength)) };
    }
  }
}

/** The private key from its fields; the public half comes from the DNSKEY. */
function privateKeyObject(algorithm: Algorithm, fields: Map<string, string>, publicJwk: JsonWebKey, file: string): KeyObject {
  const field = (name: string): string => {
    const value = fields.get(name);
    if (value === undefined || !/^[A-Za-z0-9+/]+=*$/.test(value)) throw new Error(`${file}: missing or bad '${name}'`);
    return base64url(Buffer.from(value, 'base64'));
  };
  let jwk: JsonWebKey;
  if (algorithm.kind === 'RSA') {
    jwk = {
      kty: 'RSA',
      n: field('Modulus'),
      e: field('PublicExponent'),
      d: field('PrivateExponent'),
      p: field('Prime1'),
      q: field('Prime2'),
      dp: field('Exponent1'),
      dq: field('Exponent2'),
      qi: field('Coefficient'),
    };
  } else {
    jwk = { ...publicJwk, d: field('PrivateKey') };
  }
  try {
    return createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (error) {
    throw new Error(`${file}: bad ${algorithm.name} private key: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Signs a probe with the private key and verifies it with the DNSKEY: a mismatched pair fails here, not in validators. */
function checkPair(algorithm: Algorithm, privateKey: KeyObject, publicJwk: JsonWebKey, privateFile: string, publicFile: string): void {
  const probe = Buffer.from('foghorn dnssec key check');
  const publicKey = createPublicKey({ key: publicJwk, format: 'jwk' });
  const ec = algorithm.kind === 'EC';
  const mismatch = `${privateFile}: private key does not match the public key in ${publicFile}`;
  let ok: boolean;
  try {
    const signature = ec ? sign(algorithm.hash, probe, { key: privateKey, dsaEncoding: 'ieee-p1363' }) : sign(algorithm.hash, probe, privateKey);
    ok = ec ? verify(algorithm.hash, probe, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature) : verify(algorithm.hash, probe, publicKey, signature);
  } catch (error) {
    throw new Error(mismatch, { cause: error });
  }
  if (!ok) throw new Error(mismatch);
}
