/**
 * `{$NAME}` and `{%NAME%}` substitution inside one token (CoreDNS's replaceEnvVars).
 */

/** The variables substitution reads; unset names become the empty string. */
export type Env = Readonly<Record<string, string | undefined>>;

// CoreDNS rescans the whole token after each replacement, so a value that contains its own
// placeholder would loop forever there. We stop after this many replacements instead.
const maxReplacements = 1_000;

function replaceReferences(input: string, start: string, end: string, env: Env): string {
  let s = input;
  let index = s.indexOf(start);
  for (let n = 0; index !== -1 && n < maxReplacements; n++) {
    const endIndex = s.indexOf(end, index);
    if (endIndex === -1) break;
    // An empty name (`{$}`) stops substitution for the rest of the token, as in CoreDNS.
    if (endIndex <= index + start.length) return s;
    const ref = s.slice(index, endIndex + end.length);
    const name = ref.slice(start.length, ref.length - end.length);
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    const value = typeof found === 'string' ? found : '';
    s = s.split(ref).join(value);
    index = s.indexOf(start);
  }
  return s;
}

/**
 * Replaces every `{%NAME%}` and then every `{$NAME}` in one token's text. The result is not
 * re-lexed: a value with spaces stays one token.
 *
 * @example
 * substituteEnv('.:{$PORT}', { PORT: '1053' }) // '.:1053'
 */
export function substituteEnv(text: string, env: Env): string {
  if (!text.includes('{')) return text;
  return replaceReferences(replaceReferences(text, '{%', '%}', env), '{$', '}', env);
}
