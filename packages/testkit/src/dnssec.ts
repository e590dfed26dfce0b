/**
 * DNSSEC test fixtures: key pairs made with node:crypto and written in BIND's key-file format
 * (what `dnssec-keygen` writes), and the trust anchors real validators read for them (BIND's
 * `delv`, ldns' `drill`). A validator accepting what a signer made with these keys checks the
 * key files, the signatures and the canonical form all at once.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyTag } from '@foghorn/core/wire';

/** Algorithms {@link writeDnssecKey} makes: RSASHA256, ECDSAP256SHA256, ED25519. */
export type TestKeyAlgorithm = 8 | 13 | 15;

const algorithmNames: Record<TestKeyAlgorithm, string> = { 8: 'RSASHA256', 13: 'ECDSAP256SHA256', 15: 'ED25519' };

/** A key pair written as `K<zone>+<alg>+<tag>.key` and `.private`. */
export interface TestKey {
  /** The files' path without extension: what `key file` takes. */
  readonly base: string;
  /** Owner, fully qualified. */
  readonly zone: string;
  /** 257 for a KSK (SEP bit), 256 for a ZSK or CSK. */
  readonly flags: number;
  readonly algorithm: TestKeyAlgorithm;
  readonly tag: number;
  /** The public key as the DNSKEY record carries it. */
  readonly publicKey: Buffer;
  /** `zone. 3600 IN DNSKEY flags 3 alg base64`: a zone-file line, and drill's trust-anchor file. */
  readonly dnskey: string;
}

const fromUrl = (text: string | undefined): Buffer => Buffer.from(text ?? '', 'base64url');

/** Writes a new key pair for `zone` into `dir`, as BIND's `dnssec-keygen` would (`-f KSK` for `ksk`). */
export function writeDnssecKey(dir: string, zone: string, options: { algorithm?: TestKeyAlgorithm; ksk?: boolean } = {}): TestKey {
  const algorithm = options.algorithm ?? 13;
  const flags = options.ksk ? 257 : 256;
  const owner = zone.endsWith('.') ? zone : `${zone}.`;
  let publicKey: Buffer;
  let fields: [string, Buffer][];
  if (algorithm === 13) {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    publicKey = Buffer.concat([fromUrl(jwk.x), fromUrl(jwk.y)]);
    fields = [['PrivateKey', fromUrl(jwk.d)]];
  } else if (algorithm === 15) {
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    publicKey = fromUrl(jwk.x);
    fields = [['PrivateKey', fromUrl(jwk.d)]];
  } else {
    const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const exponent = fromUrl(jwk.e);
    // RFC 3110 §2: exponent length in one byte, the exponent, the modulus.
    publicKey = Buffer.concat([Buffer.from([exponent.length]), exponent, fromUrl(jwk.n)]);
    fields = [
      ['Modulus', fromUrl(jwk.n)],
      ['PublicExponent', exponent],
      ['PrivateExponent', fromUrl(jwk.d)],
      ['Prime1', fromUrl(jwk.p)],
      ['Prime2', fromUrl(jwk.q)],
      ['Exponent1', fromUrl(jwk.dp)],
      ['Exponent2', fromUrl(jwk.dq)],
      ['Coefficient', fromUrl(jwk.qi)],
    ];
  }
  const tag = keyTag(flags, algorithm, publicKey);
  const base = join(dir, `K${owner}+${String(algorithm).padStart(3, '0')}+${String(tag).padStart(5, '0')}`);
  const dnskey = `${owner} 3600 IN DNSKEY ${flags} 3 ${algorithm} ${publicKey.toString('base64')}`;
  const kind = options.ksk ? 'key-signing' : 'zone-signing';
  writeFileSync(`${base}.key`, `; This is a ${kind} key, keyid ${tag}, for ${owner}\n${dnskey}\n`);
  const privateText = [`Private-key-format: v1.3`, `Algorithm: ${algorithm} (${algorithmNames[algorithm]})`, ...fields.map(([name, value]) => `${name}: ${value.toString('base64')}`)];
  writeFileSync(`${base}.private`, `${privateText.join('\n')}\n`, { mode: 0o600 });
  return { base, zone: owner, flags, algorithm, tag, publicKey, dnskey };
}

/** A key a validator trusts: a zone's DNSKEY. */
export type TrustAnchor = Pick<TestKey, 'zone' | 'flags' | 'algorithm' | 'publicKey'>;

/**
 * BIND's `trust-anchors` clause for `delv -a FILE` that trusts `keys` as static keys of their zones.
 */
export function delvTrustAnchors(keys: readonly TrustAnchor[]): string {
  const lines = keys.map((key) => `  ${key.zone} static-key ${key.flags} 3 ${key.algorithm} "${key.publicKey.toString('base64')}";`);
  return `trust-anchors {\n${lines.join('\n')}\n};\n`;
}

/** What a validator made of an answer. */
export interface Validation {
  /** The answer, or the denial, validated up to a trust anchor. */
  readonly validated: boolean;
  /** The validator's output, for failure messages. */
  readonly output: string;
}

/** Runs a command and gives its standard output and error, whatever its exit status. */
function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 20_000 }, (error, stdout, stderr) => {
      if (error && (error as { code?: unknown }).code === 'ENOENT') reject(new Error(`${command} is not installed (scripts/test-tools.sh installs it)`));
      else resolve(`${stdout}${stderr}`);
    });
  });
}

/** A file holding `contents` in a fresh temporary directory, for one validator run. */
async function withFile<T>(name: string, contents: string, use: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'foghorn-dnssec-'));
  try {
    const path = join(dir, name);
    writeFileSync(path, contents);
    return await use(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Asks the server at 127.0.0.1:`port` for `name`/`type` with BIND's validating resolver `delv`,
 * trusting only `anchors` (`+root=ZONE` makes the first anchor's zone the root of trust).
 * Validated means delv printed `; fully validated` (or `; negative response, fully validated`).
 */
export function delv(port: number, name: string, type: string, anchors: readonly TrustAnchor[], options: { tcp?: boolean } = {}): Promise<Validation> {
  return withFile('anchors.conf', delvTrustAnchors(anchors), async (file) => {
    const args = ['@127.0.0.1', '-p', String(port), '-a', file, `+root=${anchors[0]?.zone ?? '.'}`, ...(options.tcp ? ['+tcp'] : []), name, type];
    const output = await run('delv', args);
    return { validated: /^; (negative response, )?fully validated$/m.test(output), output };
  });
}

/**
 * Asks the same with ldns' `drill -S`, which chases the answer's signatures (and the NSEC
 * denying it) to a key in `anchors`. Validated means `;; Chase successful`.
 */
export function drill(port: number, name: string, type: string, anchors: readonly TrustAnchor[]): Promise<Validation> {
  const keys = anchors.map((key) => `${key.zone} 3600 IN DNSKEY ${key.flags} 3 ${key.algorithm} ${key.publicKey.toString('base64')}`).join('\n');
  return withFile('anchors.key', `${keys}\n`, async (file) => {
    const output = await run('drill', ['-S', '-k', file, '-p', String(port), '@127.0.0.1', name, type]);
    return { validated: /^;; Chase successful$/m.test(output), output };
  });
}
