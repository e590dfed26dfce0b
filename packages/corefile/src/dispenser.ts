/**
 * The Dispenser: how a plugin reads its own tokens (caddy's `caddyfile.Dispenser`, camelCased).
 * It walks every occurrence of one directive in a server block, each starting with its name token.
 *
 * @example
 * const c = Dispenser.fromBlock(block, 'cache');
 * for (; c.next(); ) {                 // once per occurrence of `cache`
 *   const zones = c.remainingArgs();   // the rest of the line
 *   for (; c.nextBlock(); ) {          // each line of its `{ ... }` block
 *     switch (c.val()) {
 *       case 'success': {
 *         const [capacity] = c.args(1) ?? [];
 *         if (capacity === undefined) throw c.argError();
 *         break;
 *       }
 *       default:
 *         throw c.error(`unknown property '${c.val()}'`);
 *     }
 *   }
 * }
 */
import { errorAt, syntaxErrorAt, type CorefileError } from './errors.js';
import type { ServerBlock, Token } from './types.js';

const noToken: Token = { text: '', file: '', line: 0, column: 0, newlines: 0 };

export class Dispenser {
  /** The directive these tokens belong to. */
  readonly directive: string;
  /** All tokens, every occurrence of the directive concatenated. */
  readonly tokens: readonly Token[];
  private cursor = -1;
  private depth = 0;

  /**
   * @param tokens every occurrence of one directive in a block, each starting with its name token
   * @param directive the directive name (defaults to the text of the first token)
   */
  constructor(tokens: readonly Token[], directive: string = tokens[0]?.text ?? '') {
    this.tokens = tokens;
    this.directive = directive;
  }

  /** A dispenser over every occurrence of `directive` in `block`, in file order. */
  static fromBlock(block: ServerBlock, directive: string): Dispenser {
    const tokens: Token[] = [];
    for (const d of block.directives) if (d.name === directive) tokens.push(...d.tokens);
    return new Dispenser(tokens, directive);
  }

  /** Loads the next token, wherever it is. False when all tokens have been read. */
  next(): boolean {
    if (this.cursor < this.tokens.length - 1) {
      this.cursor++;
      return true;
    }
    return false;
  }

  /** True when the token after the current one exists and is on the same line (CoreDNS's rule). */
  private nextIsOnSameLine(): boolean {
    const cur = this.tokens[this.cursor];
    const nxt = this.tokens[this.cursor + 1];
    return cur !== undefined && nxt !== undefined && cur.file === nxt.file && cur.line + cur.newlines === nxt.line;
  }

  /**
   * Loads the next token only if it is an argument: on the same line as the current one (same
   * file, and `line + newlines` of the current token equals the next token's line) and not `{`.
   * Unlike caddy's `NextArg`, a `{` is never loaded as an argument: {@link nextBlock} enters it.
   * A `}` on the same line is loaded (CoreDNS's `log { class denial }` quirk).
   */
  nextArg(): boolean {
    if (this.cursor < 0) return this.next();
    if (this.nextIsOnSameLine() && this.tokens[this.cursor + 1]?.text !== '{') {
      this.cursor++;
      return true;
    }
    return false;
  }

  /** Loads the next token only if it is on a later line than the current one. */
  nextLine(): boolean {
    if (this.cursor < 0) {
      this.cursor++;
      return true;
    }
    const cur = this.tokens[this.cursor];
    const nxt = this.tokens[this.cursor + 1];
    if (cur !== undefined && nxt !== undefined && (cur.file !== nxt.file || cur.line + cur.newlines < nxt.line)) {
      this.cursor++;
      return true;
    }
    return false;
  }

  /**
   * For `for (; c.nextBlock(); )` loops over an option block: the first call enters a `{` on the
   * current line, then each call loads the next token and returns true, until the closing `}`
   * (false). Like CoreDNS, it reads tokens, not lines: call {@link remainingArgs} or
   * {@link nextArg} to consume an option's arguments. `log { class denial }` therefore reads `}`
   * as an argument of `class`, exactly as CoreDNS does.
   *
   * To read a block nested inside an option, pass the current {@link nesting}:
   * `const level = c.nesting; for (; c.nextBlock(level); ) { ... }`.
   */
  nextBlock(initialNesting = 0): boolean {
    if (this.depth > initialNesting) {
      if (!this.next()) return false;
      if (this.val() === '}') {
        this.depth--;
        return false;
      }
      return true;
    }
    // The block must open on the same line.
    if (!this.nextIsOnSameLine() || this.tokens[this.cursor + 1]?.text !== '{') return false;
    this.cursor++;
    if (!this.next()) return false;
    if (this.val() === '}') return false; // `{ }`: opened and closed at once
    this.depth++;
    return true;
  }

  /** How many `{` blocks {@link nextBlock} is inside of. */
  get nesting(): number {
    return this.depth;
  }

  /** Text of the current token, or `''` before the first or after the last. */
  val(): string {
    return this.tokens[this.cursor]?.text ?? '';
  }

  /**
   * The current token. Before the first {@link next} it is the first token, after the end the
   * last one (so errors always have a position).
   */
  token(): Token {
    const last = this.tokens.length - 1;
    return this.tokens[Math.max(0, Math.min(this.cursor, last))] ?? noToken;
  }

  /**
   * Caddy's `Args(&a, &b)`: loads the next `count` arguments on this line. Returns them, or
   * `undefined` when the line had fewer (the ones found are consumed all the same).
   */
  args(count: number): string[] | undefined {
    const values: string[] = [];
    for (let i = 0; i < count; i++) {
      if (!this.nextArg()) return undefined;
      values.push(this.val());
    }
    return values;
  }

  /** The rest of the arguments on this line, stopping before (not loading) a `{`. */
  remainingArgs(): string[] {
    return this.remainingArgTokens().map((t) => t.text);
  }

  /** {@link remainingArgs} with positions. */
  remainingArgTokens(): Token[] {
    const tokens: Token[] = [];
    while (this.nextArg()) tokens.push(this.token());
    return tokens;
  }

  /** `FILE:LINE:COLUMN - Error during parsing: MESSAGE` at the current token (caddy's `Err`). */
  error(message: string): CorefileError {
    return errorAt(this.token(), message);
  }

  /**
   * Another argument was expected: `Wrong argument count or unexpected line ending after 'X'`
   * at the current token X, or `Unexpected token '{', expecting argument` at the `{` when the
   * current token is `{` or the next token on this line is (where CoreDNS, whose `NextArg` loads
   * `{`, would stand on it).
   */
  argError(): CorefileError {
    if (this.val() === '{') return this.error("Unexpected token '{', expecting argument");
    const nxt = this.tokens[this.cursor + 1];
    if (this.cursor >= 0 && nxt?.text === '{' && this.nextIsOnSameLine()) {
      return errorAt(nxt, "Unexpected token '{', expecting argument");
    }
    return this.error(`Wrong argument count or unexpected line ending after '${this.val()}'`);
  }

  /** `FILE:LINE:COLUMN - Syntax error: Unexpected token 'X', expecting 'EXPECTED'`. */
  syntaxError(expected: string): CorefileError {
    return syntaxErrorAt(this.token(), this.val(), expected);
  }

  /** `Unexpected EOF` at the current (last read) token. */
  eofError(): CorefileError {
    return this.error('Unexpected EOF');
  }
}
