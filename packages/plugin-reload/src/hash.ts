/**
 * The Corefile fingerprint *reload* compares: SHA-512 of the parsed server blocks serialised
 * as CoreDNS's Go `json.Marshal([]caddyfile.ServerBlock)` does (keys, then per directive every
 * token's File, Line and Text). Hashing parsed tokens rather than bytes means edits to imported
 * files are seen, and edits that change no token are not (CoreDNS's plugin/reload).
 */
import { createHash } from 'node:crypto';
import { parseCorefile } from '@foghorn/core/wire';
import type { ServerBlock } from '@foghorn/core/wire';

/** The JSON Go produces for the blocks, byte for byte where our parser agrees with caddy's. */
export function corefileJson(blocks: readonly ServerBlock[]): string {
  // Go marshals a nil slice (no server block) as null.
  if (blocks.length === 0) return 'null';
  const json = JSON.stringify(
    blocks.map((block) => {
      const tokens: Record<string, { File: string; Line: number; Text: string }[]> = {};
      // Go's map[string][]Token: one entry per directive name, occurrences concatenated...
      for (const directive of block.directives) {
        (tokens[directive.name] ??= []).push(...directive.tokens.map((t) => ({ File: t.file, Line: t.line, Text: t.text })));
      }
      // ...and encoding/json writes map keys sorted.
      const sorted: typeof tokens = {};
      for (const name of Object.keys(tokens).sort()) sorted[name] = tokens[name]!;
      return { Keys: block.keys.map((key) => key.text), Tokens: sorted };
    }),
  );
  // encoding/json escapes these for safe embedding in HTML; JSON.stringify doesn't.
  return json.replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Parses the Corefile text (imports expanded, `{$ENV}` substituted, directive names not checked)
 * and returns the hex SHA-512 of {@link corefileJson}. Throws the parse error.
 */
export function hashCorefile(source: { readonly path: string; readonly contents: string }, env?: Readonly<Record<string, string | undefined>>): string {
  const blocks = parseCorefile(source.contents, { file: source.path, ...(env ? { env } : {}) });
  return createHash('sha512').update(corefileJson(blocks)).digest('hex');
}
