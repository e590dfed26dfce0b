/**
 * The one error type of the Corefile language. Its message keeps CoreDNS's wording so people can
 * search for it, and adds the column CoreDNS leaves out: `Corefile:3:5 - Error during parsing: ...`.
 */
import type { Token } from './types.js';

/** Where a token or an error is: file, 1-based line and 1-based column (code points). */
export type Position = Pick<Token, 'file' | 'line' | 'column'>;

/** Stable code of every {@link CorefileError}. */
export const CONFIG_ERROR_CODE = 'FOGHORN_ERR_CONFIG';

// Symbol.for so that a second installed copy of this package recognises our errors (undici's trick).
const kCorefileError = Symbol.for('foghorn.CorefileError');

/** `FILE:LINE:COLUMN`, the prefix every Corefile error starts with. */
export function formatPosition(at: Position): string {
  return `${at.file}:${at.line}:${at.column}`;
}

/**
 * A configuration error with a position. The message is the whole line an operator sees, e.g.
 * `Corefile:3:5 - Error during parsing: Unknown directive 'foo'`; {@link CorefileError.reason}
 * is the part after the position.
 *
 * `instanceof CorefileError` works across two installed copies of `@foghorn/corefile`.
 */
export class CorefileError extends Error {
  /** Always `FOGHORN_ERR_CONFIG`. */
  readonly code: typeof CONFIG_ERROR_CODE = CONFIG_ERROR_CODE;
  /** File of the offending token (the path as given for the main file, absolute for imports). */
  readonly file: string;
  /** 1-based line of the offending token. */
  readonly line: number;
  /** 1-based column (in code points) of the offending token. */
  readonly column: number;
  /** The message without the position, e.g. `Error during parsing: Unknown directive 'foo'`. */
  readonly reason: string;

  /**
   * @param reason the text after the position, starting with `Error during parsing: ` or
   *   `Syntax error: ` in CoreDNS's format (see {@link errorAt} and {@link syntaxErrorAt}).
   */
  constructor(reason: string, at: Position, options?: ErrorOptions) {
    super(`${formatPosition(at)} - ${reason}`, options);
    this.name = 'CorefileError';
    this.file = at.file;
    this.line = at.line;
    this.column = at.column;
    this.reason = reason;
    Object.defineProperty(this, kCorefileError, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[kCorefileError] === true
    );
  }
}

/** `FILE:LINE:COLUMN - Error during parsing: MESSAGE` at the given token (CoreDNS's `Err`). */
export function errorAt(at: Position, message: string, options?: ErrorOptions): CorefileError {
  return new CorefileError(`Error during parsing: ${message}`, at, options);
}

/**
 * `FILE:LINE:COLUMN - Syntax error: Unexpected token 'FOUND', expecting 'EXPECTED'`
 * (CoreDNS's `SyntaxErr`).
 */
export function syntaxErrorAt(at: Position, found: string, expected: string): CorefileError {
  return new CorefileError(`Syntax error: Unexpected token '${found}', expecting '${expected}'`, at);
}
