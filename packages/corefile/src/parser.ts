/**
 * The Corefile parser: CoreDNS's caddyfile/parse.go, step for step. It walks one flat token list
 * with a cursor and splices `import`ed tokens into that list, so the quirks of the original
 * (a `{` on the next line joins the previous directive, a brace-less block ends at a bare `}`,
 * a missing outer `}` hides behind a nested one, ...) come out the same.
 *
 * Differences: errors carry a column; a file that imports itself, directly or through other files,
 * is reported at once as an import cycle instead of after 100,000 expansions; a value that
 * contains its own `{$NAME}` cannot hang substitution.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { CorefileError, errorAt, formatPosition, syntaxErrorAt, type Position } from './errors.js';
import { substituteEnv, type Env } from './env.js';
import { closest } from './suggest.js';
import { BadPatternError, badPatternMessage, glob } from './glob.js';
import { countNewlines, tokenize } from './lexer.js';
import type { DirectiveOccurrence, ParseOptions, ServerBlock, Token } from './types.js';

/** Per parse, at most this many snippet imports (CoreDNS's maxSnippetExpansions). */
export const maxSnippetExpansions = 10_000;
/** Per parse, at most this many file or glob imports (CoreDNS's maxFileExpansions). */
export const maxFileExpansions = 100_000;

/** A token while parsing: mutable text (substituted in place, as CoreDNS does) and its import chain. */
class ParseToken {
  constructor(
    public text: string,
    readonly file: string,
    readonly line: number,
    readonly column: number,
    public newlines: number,
    /** Absolute paths of the files whose imports led to this token, its own file last. */
    readonly chain: readonly string[],
  ) {}

  static from(t: Token, chain: readonly string[]): ParseToken {
    return new ParseToken(t.text, t.file, t.line, t.column, t.newlines, chain);
  }
}

function publicToken(t: ParseToken, text: string): Token {
  return { text, file: t.file, line: t.line, column: t.column, newlines: countNewlines(text) };
}

/** Go's error text for a failed open/stat. */
function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTDIR':
      return 'not a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

class Parser {
  private tokens: ParseToken[];
  private cursor = -1;
  private eof = false;
  private keys: Token[] = [];
  private occurrences: DirectiveOccurrence[] = [];
  private readonly snippets = new Map<string, ParseToken[]>();
  private snippetExpansions = 0;
  private fileExpansions = 0;
  /** Lexed files, by absolute path: a file imported many times is read once per parse. */
  private readonly fileCache = new Map<string, Token[]>();
  /** Glob results by pattern, for the same reason: one parse sees one state of the disk. */
  private readonly globCache = new Map<string, string[]>();
  /** Path arithmetic results (resolve, join) by input: 100,000 imports make it count. */
  private readonly joinCache = new Map<string, string>();
  private readonly env: Env;

  constructor(
    text: string,
    private readonly filename: string,
    private readonly options: ParseOptions,
  ) {
    this.env = options.env ?? process.env;
    const chain = [resolve(filename)];
    this.tokens = tokenize(text, filename).map((t) => ParseToken.from(t, chain));
  }

  // ---- cursor moves, as in CoreDNS's Dispenser --------------------------------------------

  private next(): boolean {
    if (this.cursor < this.tokens.length - 1) {
      this.cursor++;
      return true;
    }
    return false;
  }

  private nextArg(): boolean {
    if (this.cursor < 0) {
      this.cursor++;
      return true;
    }
    const cur = this.tokens[this.cursor];
    const nxt = this.tokens[this.cursor + 1];
    if (cur !== undefined && nxt !== undefined && cur.file === nxt.file && cur.line + cur.newlines === nxt.line) {
      this.cursor++;
      return true;
    }
    return false;
  }

  private val(): string {
    return this.tokens[this.cursor]?.text ?? '';
  }

  private isNewLine(): boolean {
    if (this.cursor < 1) return true;
    const cur = this.tokens[this.cursor];
    const prev = this.tokens[this.cursor - 1];
    if (cur === undefined || prev === undefined) return false;
    return prev.file !== cur.file || prev.line + prev.newlines < cur.line;
  }

  /** The current token, or the last one read when the cursor ran past the end. */
  private position(): Position {
    const t = this.tokens[this.cursor] ?? this.tokens[this.tokens.length - 1];
    return t ?? { file: this.filename, line: 1, column: 1 };
  }

  private err(message: string): CorefileError {
    return errorAt(this.position(), message);
  }

  private syntaxErr(expected: string): CorefileError {
    return syntaxErrorAt(this.position(), this.val(), expected);
  }

  private argErr(): CorefileError {
    if (this.val() === '{') return this.err("Unexpected token '{', expecting argument");
    return this.err(`Wrong argument count or unexpected line ending after '${this.val()}'`);
  }

  private subst(text: string): string {
    return substituteEnv(text, this.env);
  }

  // ---- structure ---------------------------------------------------------------------------

  parseAll(): ServerBlock[] {
    const blocks: ServerBlock[] = [];
    while (this.next()) {
      this.keys = [];
      this.occurrences = [];
      this.begin();
      if (this.keys.length > 0) blocks.push({ keys: this.keys, directives: this.occurrences });
    }
    return blocks;
  }

  private begin(): void {
    if (this.tokens.length === 0) return;
    this.addresses();
    // A Corefile that is only a line of keys: a block without directives.
    if (this.eof) return;
    const name = this.snippetName();
    if (name !== undefined) {
      if (this.snippets.has(name)) throw this.err(`redeclaration of previously declared snippet ${name}`);
      const body = this.snippetTokens();
      // CoreDNS's minimal guard against a snippet importing itself at a line start.
      for (let i = 0; i + 1 < body.length; i++) {
        const t = body[i] as ParseToken;
        const prev = body[i - 1];
        const atLineStart = prev === undefined || prev.file !== t.file || prev.line !== t.line;
        if (t.text === 'import' && atLineStart && this.subst((body[i + 1] as ParseToken).text) === name) {
          throw this.err(`maximum snippet import depth (${maxSnippetExpansions}) exceeded`);
        }
      }
      this.snippets.set(name, body);
      this.keys = []; // a snippet is never a server block
      return;
    }
    this.blockContents();
  }

  private addresses(): void {
    let expectingAnother = false;
    for (;;) {
      let text = this.subst(this.val());
      if (text === 'import' && this.isNewLine()) {
        this.doImport();
        continue;
      }
      if (text === '{') {
        if (expectingAnother) throw this.err(`Expected another address but had '${text}' - check for extra comma`);
        break;
      }
      const current = this.tokens[this.cursor];
      if (text !== '' && current !== undefined) {
        // A trailing comma means another key follows, possibly on the next line.
        expectingAnother = text.endsWith(',');
        if (expectingAnother) text = text.slice(0, -1);
        this.keys.push(publicToken(current, text));
      }
      const hasNext = this.next();
      if (expectingAnother && !hasNext) throw this.err('Unexpected EOF');
      if (!hasNext) {
        this.eof = true;
        break;
      }
      if (!expectingAnother && this.isNewLine()) break;
    }
  }

  private snippetName(): string | undefined {
    const only = this.keys.length === 1 ? this.keys[0]?.text : undefined;
    if (only === undefined || !only.startsWith('(') || !only.endsWith(')')) return undefined;
    return only.slice(1, -1);
  }

  /** The snippet's tokens up to the matching `}`, stored unparsed and unsubstituted. */
  private snippetTokens(): ParseToken[] {
    if (this.val() !== '{') throw this.syntaxErr('{');
    const opener = this.position();
    let depth = 1;
    const body: ParseToken[] = [];
    while (this.next()) {
      const text = this.val();
      if (text === '}' && --depth === 0) break;
      if (text === '{') depth++;
      body.push(this.tokens[this.cursor] as ParseToken);
    }
    if (depth !== 0) throw unclosed(this.syntaxErr('}'), opener);
    return body;
  }

  private blockContents(): void {
    // Without a `{` this is a brace-less block: directives run to EOF or a bare `}`.
    const braced = this.val() === '{';
    const opener = this.position();
    if (!braced) this.cursor--;
    this.directives();
    if (braced && this.val() !== '}') throw unclosed(this.syntaxErr('}'), opener);
  }

  private directives(): void {
    while (this.next()) {
      const text = this.val();
      if (text === '}') break;
      if (text === 'import') {
        this.doImport();
        this.cursor--; // land on the first imported token at the next step
        continue;
      }
      this.directive();
    }
  }

  private directive(): void {
    const nameToken = this.tokens[this.cursor] as ParseToken;
    const name = this.subst(nameToken.text);
    if (this.options.isDirective !== undefined && !this.options.isDirective(name)) {
      const hint = this.options.directiveNames && closest(name, this.options.directiveNames);
      throw this.err(`Unknown directive '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}`);
    }
    const tokens: Token[] = [publicToken(nameToken, name)];
    const openers: Position[] = [];
    while (this.next()) {
      const text = this.val();
      // `{` is checked before the newline: an option block on the next line joins this directive.
      if (text === '{') {
        openers.push(this.position());
      } else if (this.isNewLine() && openers.length === 0) {
        this.cursor--;
        break;
      } else if (text === '}' && openers.length > 0) {
        openers.pop();
      } else if (text === '}') {
        throw this.err("Unexpected '}' because no matching opening brace");
      } else if (text === 'import' && this.isNewLine()) {
        this.doImport();
        this.cursor--;
        continue;
      }
      const t = this.tokens[this.cursor] as ParseToken;
      t.text = this.subst(t.text);
      t.newlines = countNewlines(t.text);
      tokens.push(publicToken(t, t.text));
    }
    if (openers.length > 0) throw unclosed(this.err('Unexpected EOF'), openers[openers.length - 1]!);
    this.occurrences.push({ name, tokens });
  }

  // ---- import ------------------------------------------------------------------------------

  /**
   * Replaces `import PATTERN` (the current token and the next) with the snippet's or the files'
   * tokens and leaves the cursor on the first of them.
   */
  private doImport(): void {
    if (!this.nextArg()) throw this.argErr();
    const pattern = this.subst(this.val());
    if (pattern === '') throw this.err('Import requires a non-empty filepath');
    if (this.nextArg()) throw this.err('Import takes only one argument (glob pattern or file)');
    const at = this.tokens[this.cursor] as ParseToken;

    let imported: ParseToken[] = [];
    const snippet = this.snippets.get(pattern);
    if (snippet !== undefined) {
      if (this.snippetExpansions >= maxSnippetExpansions) {
        throw this.err(`maximum snippet import depth (${maxSnippetExpansions}) exceeded`);
      }
      this.snippetExpansions++;
      // Snippet tokens keep the place they were defined; they join the chain of the place of use.
      imported = snippet.map((t) => ParseToken.from(t, at.chain));
    } else {
      if (this.fileExpansions >= maxFileExpansions) {
        // CoreDNS prints the snippet limit here too.
        throw this.err(`maximum file import depth (${maxSnippetExpansions}) exceeded`);
      }
      this.fileExpansions++;
      // Relative to the file holding the import token, not the working directory.
      const globPattern = this.globPatternFor(pattern, at.file);
      if (
        count(globPattern, '*') > 1 ||
        count(globPattern, '?') > 1 ||
        (globPattern.includes('[') && globPattern.includes(']'))
      ) {
        throw this.err(`Glob pattern may only contain one wildcard (*), but has others: ${globPattern}`);
      }
      let matches = this.globCache.get(globPattern);
      if (matches === undefined) {
        try {
          matches = glob(globPattern);
        } catch (error) {
          if (!(error instanceof BadPatternError)) throw error;
          throw this.err(`Failed to use import pattern ${pattern}: ${badPatternMessage}`);
        }
        this.globCache.set(globPattern, matches);
      }
      if (matches.length === 0) {
        if (/[*?[\]]/.test(globPattern)) {
          this.warn(`No files matching import glob pattern: ${pattern}`);
        } else {
          throw this.err(`File to import not found: ${pattern}`);
        }
      }
      for (const file of matches) imported = imported.concat(this.importFile(file, at));
    }

    // Splice the imported tokens in place of `import PATTERN`.
    const start = this.cursor - 1;
    if (imported.length <= 10_000) {
      this.tokens.splice(start, 2, ...imported); // in place: cheap when imports are many and small
    } else {
      this.tokens = this.tokens.slice(0, start).concat(imported, this.tokens.slice(this.cursor + 1));
    }
    this.cursor = start;
  }

  /** The pattern as CoreDNS globs it: joined to the importing file's directory unless absolute. */
  private globPatternFor(pattern: string, file: string): string {
    if (isAbsolute(pattern)) return pattern;
    const key = `${file}\0${pattern}`;
    let joined = this.joinCache.get(key);
    if (joined === undefined) {
      joined = join(dirname(resolve(file)), pattern);
      if (joined.length > 1 && joined.endsWith(sep)) joined = joined.slice(0, -1); // Go's Clean
      this.joinCache.set(key, joined);
    }
    return joined;
  }

  private importFile(file: string, at: ParseToken): ParseToken[] {
    let absolute = this.joinCache.get(file);
    if (absolute === undefined) {
      absolute = resolve(file);
      this.joinCache.set(file, absolute);
    }
    if (at.chain.includes(absolute)) {
      throw this.err(`Import cycle detected: ${[...at.chain, absolute].join(' -> ')}`);
    }
    let lexed = this.fileCache.get(absolute);
    if (lexed === undefined) {
      let isDirectory: boolean;
      let text = '';
      try {
        isDirectory = statSync(file).isDirectory();
        if (!isDirectory) text = readFileSync(file, 'utf8');
      } catch (error) {
        throw this.err(`Could not import ${file}: open ${file}: ${describeFsError(error)}`);
      }
      if (isDirectory) throw this.err(`Could not import ${file}: is a directory`);
      // Imported tokens carry the absolute path so errors name the right file.
      lexed = tokenize(text, absolute);
      this.fileCache.set(absolute, lexed);
    }
    const chain = [...at.chain, absolute];
    return lexed.map((t) => ParseToken.from(t, chain));
  }

  private warn(message: string): void {
    if (this.options.warn !== undefined) this.options.warn(message);
    else process.stdout.write(`[WARNING] ${message}\n`);
  }
}

function count(text: string, ch: string): number {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * Parses a Corefile into its server blocks, expanding `import`s (snippets, files and globs) and
 * `{$VAR}` / `{%VAR%}` placeholders. Snippet definitions are not server blocks; blocks whose keys
 * are all empty are dropped. Synchronous: imported files are read with `fs` sync calls.
 *
 * @throws {CorefileError} on any syntax error, with CoreDNS's message and `file:line:column`.
 *
 * @example
 * const blocks = parseCorefile('example.org:1053 {\n  whoami\n  log\n}\n');
 * blocks[0]?.keys.map((k) => k.text);       // ['example.org:1053']
 * blocks[0]?.directives.map((d) => d.name); // ['whoami', 'log']
 */
export function parseCorefile(text: string, options: ParseOptions = {}): ServerBlock[] {
  return new Parser(text, options.file ?? 'Corefile', options).parseAll();
}

/** A missing `}` is found at the end of the file; the error also names where the block opened. */
function unclosed(error: CorefileError, opener: Position): CorefileError {
  return new CorefileError(`${error.reason} (the block opened at ${formatPosition(opener)} is never closed)`, error);
}
