/**
 * caddy's `SplitCommandAndArgs` on Unix: github.com/flynn/go-shlex's `Split`, whose rules *on*'s
 * commands follow in CoreDNS. The Corefile's tokens of a command are joined by spaces and split
 * again by these rules, so `sh -c 'echo a b'` (single quotes are plain characters to the Corefile)
 * reaches `sh` as three words, and `sh -c "echo a b"` as five, exactly as in CoreDNS.
 *
 * go-shlex knows a fixed set of characters: anything else outside quotes (a backtick, a
 * non-ASCII letter) is an error, as it is there, with its wording (`Uknown` included).
 */

const WORD_CHARS = new Set('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-,/@$*()+=><:;&^%~|!?[]{}');
const SPACES = new Set(' \t\r\n');

const enum Kind {
  Unknown,
  Char,
  Space,
  EscapingQuote,
  NonEscapingQuote,
  Escape,
  Comment,
}

function kindOf(ch: string): Kind {
  if (WORD_CHARS.has(ch)) return Kind.Char;
  if (SPACES.has(ch)) return Kind.Space;
  switch (ch) {
    case '"':
      return Kind.EscapingQuote;
    case "'":
      return Kind.NonEscapingQuote;
    case '\\':
      return Kind.Escape;
    case '#':
      return Kind.Comment;
    default:
      return Kind.Unknown;
  }
}

const enum State {
  Start,
  InWord,
  Escaping,
  EscapingQuoted,
  QuotedEscaping,
  Quoted,
  Comment,
}

/** Splits `text` into words, shell-style; throws go-shlex's error text. */
export function shlexSplit(text: string): string[] {
  const words: string[] = [];
  const chars = [...text];
  let i = 0;
  for (;;) {
    let state = State.Start;
    let word = '';
    let isWord = false;
    scan: for (;;) {
      const ch = chars[i++];
      const kind = ch === undefined ? undefined : kindOf(ch);
      const rune = ch?.codePointAt(0);
      switch (state) {
        case State.Start:
          if (kind === undefined) return words;
          if (kind === Kind.Char) [isWord, word, state] = [true, ch!, State.InWord];
          else if (kind === Kind.EscapingQuote) [isWord, state] = [true, State.QuotedEscaping];
          else if (kind === Kind.NonEscapingQuote) [isWord, state] = [true, State.Quoted];
          else if (kind === Kind.Escape) [isWord, state] = [true, State.Escaping];
          else if (kind === Kind.Comment) state = State.Comment;
          else if (kind === Kind.Unknown) throw new Error(`Unknown rune: ${rune}`);
          break;
        case State.InWord:
          if (kind === undefined) break scan;
          if (kind === Kind.Char || kind === Kind.Comment) word += ch;
          else if (kind === Kind.Space) {
            i--;
            break scan;
          } else if (kind === Kind.EscapingQuote) state = State.QuotedEscaping;
          else if (kind === Kind.NonEscapingQuote) state = State.Quoted;
          else if (kind === Kind.Escape) state = State.Escaping;
          else throw new Error(`Uknown rune: ${rune}`);
          break;
        case State.Escaping:
          if (kind === undefined) throw new Error('EOF found after escape character');
          if (kind === Kind.Unknown) throw new Error(`Uknown rune: ${rune}`);
          [word, state] = [word + ch, State.InWord];
          break;
        case State.EscapingQuoted:
          if (kind === undefined) throw new Error('EOF found after escape character');
          if (kind === Kind.Unknown) throw new Error(`Uknown rune: ${rune}`);
          [word, state] = [word + ch, State.QuotedEscaping];
          break;
        case State.QuotedEscaping:
          if (kind === undefined) throw new Error('EOF found when expecting closing quote.');
          if (kind === Kind.EscapingQuote) state = State.InWord;
          else if (kind === Kind.Escape) state = State.EscapingQuoted;
          else word += ch;
          break;
        case State.Quoted:
          if (kind === undefined) throw new Error('EOF found when expecting closing quote.');
          if (kind === Kind.NonEscapingQuote) state = State.InWord;
          else word += ch;
          break;
        case State.Comment:
          // A comment runs to the end of its line and is dropped.
          if (kind === undefined || ch === '\n') break scan;
          break;
      }
    }
    if (isWord) words.push(word);
    if (i > chars.length) return words;
  }
}

/** caddy's `SplitCommandAndArgs`: the first word and the rest, or its error text. */
export function splitCommandAndArgs(command: string): { command: string; args: string[] } {
  let parts: string[];
  try {
    parts = shlexSplit(command);
  } catch (error) {
    throw new Error(`error parsing command: ${(error as Error).message}`);
  }
  if (parts.length === 0) throw new Error(`no command contained in '${command}'`);
  return { command: parts[0]!, args: parts.slice(1) };
}
