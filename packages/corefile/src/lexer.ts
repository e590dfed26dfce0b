/**
 * The Corefile lexer (CoreDNS's caddyfile/lexer.go), built on a chevrotain `Lexer` with custom
 * token patterns because the Corefile's word rules are not regular in the usual sense:
 *
 * - whitespace is Go's `unicode.IsSpace`, but a `\r` inside a word is dropped without ending it;
 * - `#` starts a comment anywhere outside quotes: at a token start it runs to the end of the line,
 *   in the middle of a word it ends the word and hides the rest of that word only;
 * - `"` opens a quoted token only as the first character of a token; inside, `\"` is the only escape,
 *   newlines are kept, and an unterminated quote at EOF still makes a token (if non-empty);
 * - `{` and `}` are ordinary words here; the parser looks at whole tokens.
 *
 * Positions (line, column in code points) are computed here rather than by chevrotain, which counts
 * UTF-16 units and knows nothing of the `\r` rule.
 */
import type * as Chevrotain from 'chevrotain';
import type { CustomPatternMatcherFunc, TokenType } from 'chevrotain';
import type { Token } from './types.js';

/**
 * chevrotain's package entry pulls in some 400 lodash-es modules, about 0.4 s of startup for
 * every `foghorn` run; the single-file bundle it ships beside it has the same API and loads in
 * a tenth of that. Its path is not in the package's exports, so it is found from the entry.
 */
async function loadChevrotain(): Promise<typeof Chevrotain> {
  try {
    return (await import(new URL('../chevrotain.mjs', import.meta.resolve('chevrotain')).href)) as typeof Chevrotain;
  } catch {
    return import('chevrotain');
  }
}

const { createToken, Lexer } = await loadChevrotain();

// Go's unicode.IsSpace: Latin-1 spaces plus the Unicode White_Space property.
const SPACE_NO_CR = '\\t\\n\\v\\f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const SPACE = `${SPACE_NO_CR}\\r`;

function sticky(source: string): CustomPatternMatcherFunc {
  const re = new RegExp(source, 'y');
  return (text, offset) => {
    re.lastIndex = offset;
    return re.exec(text);
  };
}

const Whitespace = createToken({
  name: 'Whitespace',
  pattern: { exec: sticky(`[${SPACE}]+`) },
  line_breaks: true,
  group: Lexer.SKIPPED,
});

// A `#` at the start of a token hides the rest of the line.
const Comment = createToken({
  name: 'Comment',
  pattern: { exec: sticky('#[^\\n]*') },
  line_breaks: false,
  group: Lexer.SKIPPED,
});

// Ends at the next unescaped quote, or at EOF (an unterminated quote is not an error).
const Quoted = createToken({
  name: 'Quoted',
  pattern: { exec: sticky('"(?:[^"\\\\]|\\\\[\\s\\S])*(?:"|\\\\)?') },
  line_breaks: true,
});

// A word goes on over `\r`; a `#` inside it starts a comment that lasts to the next real space.
const Word = createToken({
  name: 'Word',
  pattern: { exec: sticky(`[^${SPACE}#"][^${SPACE_NO_CR}#]*(?:#[^${SPACE_NO_CR}]*)?`) },
  line_breaks: false,
});

const tokenTypes: TokenType[] = [Whitespace, Comment, Quoted, Word];
let lexer: Chevrotain.Lexer | undefined;

function getLexer(): Chevrotain.Lexer {
  lexer ??= new Lexer(tokenTypes, {
    positionTracking: 'onlyOffset',
    ensureOptimizations: false,
    skipValidations: true,
  });
  return lexer;
}

/** Text of a quoted image: `\"` is the only escape; a dangling `\` at EOF is dropped. */
function unquote(image: string): { text: string; terminated: boolean } {
  let text = '';
  for (let i = 1; i < image.length; i++) {
    const ch = image[i] as string;
    if (ch === '\\') {
      const next = image[i + 1];
      if (next === undefined) break;
      text += next === '"' ? '"' : `\\${next}`;
      i++;
    } else if (ch === '"') {
      return { text, terminated: true };
    } else {
      text += ch;
    }
  }
  return { text, terminated: false };
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Splits Corefile text into tokens exactly as CoreDNS's lexer does (see the module comment).
 * No environment substitution and no imports happen here. A leading BOM is discarded.
 *
 * @example
 * tokenize('forward . 1.1.1.1#53 # upstream').map((t) => t.text) // ['forward', '.', '1.1.1.1']
 */
export function tokenize(input: string, file = 'Corefile'): Token[] {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const result = getLexer().tokenize(text);
  const firstError = result.errors[0];
  if (firstError !== undefined) {
    // Every character starts some token type, so this cannot happen.
    throw new Error(`corefile lexer: ${firstError.message}`);
  }
  const tokens: Token[] = [];
  let line = 1;
  let column = 1;
  let pos = 0;
  for (const t of result.tokens) {
    // Walk up to the token start, counting lines and code points.
    for (; pos < t.startOffset; pos++) {
      const code = text.charCodeAt(pos);
      if (code === 10) {
        line++;
        column = 1;
      } else if (code < 0xdc00 || code > 0xdfff) {
        column++; // a low surrogate belongs to the code point already counted
      }
    }
    const image = t.image;
    if (t.tokenType === Quoted) {
      const { text: value, terminated } = unquote(image);
      if (terminated || value !== '') {
        tokens.push({ text: value, file, line, column, newlines: countNewlines(value) });
      }
    } else {
      const hash = image.indexOf('#');
      const value = (hash === -1 ? image : image.slice(0, hash)).replaceAll('\r', '');
      tokens.push({ text: value, file, line, column, newlines: 0 });
    }
  }
  return tokens;
}

export { countNewlines };
