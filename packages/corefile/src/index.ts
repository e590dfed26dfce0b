/**
 * `@foghorn/corefile`: CoreDNS's Corefile language (lexer, parser, `import`, snippets, `{$ENV}`)
 * and the Dispenser plugins read their tokens with. No DNS code: usable by linters and editors.
 *
 * @module
 */
export type { DirectiveOccurrence, ParseOptions, ServerBlock, Token } from './types.js';
export { CONFIG_ERROR_CODE, CorefileError, errorAt, formatPosition, syntaxErrorAt, type Position } from './errors.js';
export { tokenize } from './lexer.js';
export { substituteEnv, type Env } from './env.js';
export { parseCorefile, maxFileExpansions, maxSnippetExpansions } from './parser.js';
export { Dispenser } from './dispenser.js';
export { formatDuration, parseDuration } from './duration.js';
