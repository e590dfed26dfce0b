/**
 * Where the AWS credentials come from, in the order of the AWS SDK's default chain that CoreDNS
 * uses: `aws_access_key` in the Corefile, then the environment (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), then the shared credentials file
 * (`credentials PROFILE [FILENAME]`, else `AWS_PROFILE` and `AWS_SHARED_CREDENTIALS_FILE`, else
 * `default` in `~/.aws/credentials`). Read at startup and at every refresh, so a rotated file is
 * picked up.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AwsCredentials } from './sigv4.js';

export interface CredentialSource {
  /** `aws_access_key ID KEY`. */
  readonly static?: AwsCredentials | undefined;
  /** `credentials PROFILE [FILENAME]`. */
  readonly profile?: string | undefined;
  readonly file?: string | undefined;
}

/** The profiles of an INI-style shared credentials file. */
export function parseSharedCredentials(text: string): Map<string, Record<string, string>> {
  const profiles = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+|\s+$/g, '');
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (section) {
      current = {};
      profiles.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (current && eq > 0) current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return profiles;
}

/** The credentials to sign with, or an error saying where none were found. */
export function resolveCredentials(source: CredentialSource, env: NodeJS.ProcessEnv = process.env): AwsCredentials {
  if (source.static) return source.static;
  if (source.profile === undefined && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN };
  }
  const profile = source.profile ?? env.AWS_PROFILE ?? 'default';
  const file = source.file ?? env.AWS_SHARED_CREDENTIALS_FILE ?? join(homedir(), '.aws', 'credentials');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`no AWS credentials: none in the Corefile or the environment, and ${file} cannot be read`);
  }
  const entry = parseSharedCredentials(text).get(profile);
  if (!entry?.aws_access_key_id || !entry.aws_secret_access_key) throw new Error(`no AWS credentials: profile ${profile} not found in ${file}`);
  return { accessKeyId: entry.aws_access_key_id, secretAccessKey: entry.aws_secret_access_key, sessionToken: entry.aws_session_token };
}
