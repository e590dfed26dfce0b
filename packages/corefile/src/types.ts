/**
 * Public data shapes of the Corefile language. Everything here is plain data so a linter,
 * an editor or the server can use it without pulling in any DNS code.
 */

/** One lexical token with the place it starts at. */
export interface Token {
  /** Token text after unquoting and `{$VAR}` / `{%VAR%}` substitution. */
  readonly text: string;
  /** File the token came from: the path as given for the main file, absolute for imported files. */
  readonly file: string;
  /** 1-based line on which the token starts. */
  readonly line: number;
  /** 1-based column (in Unicode code points) at which the token starts. */
  readonly column: number;
  /** Number of newlines inside a quoted token; CoreDNS counts them when asking "same line?". */
  readonly newlines: number;
}

/** One occurrence of a directive inside a server block, its name token first. */
export interface DirectiveOccurrence {
  /** Directive name (the text of `tokens[0]`). */
  readonly name: string;
  /** Every token of the occurrence: the name, its arguments and any nested `{ ... }` block. */
  readonly tokens: readonly Token[];
}

/** One server block: its keys and its directives in file order. */
export interface ServerBlock {
  /**
   * Keys (addresses) as written after substitution, one trailing comma removed, empty keys
   * (`""`, an unset `{$VAR}`) skipped. As in CoreDNS, a key that was only `,` stays as `''`.
   */
  readonly keys: readonly Token[];
  /** Directive occurrences in the order they appear in the file (imports expanded). */
  readonly directives: readonly DirectiveOccurrence[];
}

/** Options for {@link parseCorefile}. */
export interface ParseOptions {
  /** Name of the file, used in positions and to resolve relative imports (default `Corefile`). */
  readonly file?: string;
  /** Environment used for `{$VAR}` and `{%VAR%}` (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Decides whether a directive name is known. When given, an unknown name is the error
   * `Unknown directive 'NAME'` at the name's position; when absent every name is accepted.
   */
  readonly isDirective?: (name: string) => boolean;
  /**
   * The known directive names, for a hint on an unknown one:
   * `Unknown directive 'forwrd' (did you mean 'forward'?)`.
   */
  readonly directiveNames?: Iterable<string>;
  /** Called for non-fatal findings such as an import glob that matched nothing. */
  readonly warn?: (message: string) => void;
}
