/** Setup of *view* (CoreDNS's `plugin/view/setup.go`). */
import { errorAt, errOnce, MetadataProviders, Views } from '@foghorn/core';
import type { Controller, Token } from '@foghorn/core';
import { compileExpression, ExpressionError } from './expr.js';
import type { Expression } from './expr.js';
import { ViewHandler } from './handler.js';

export interface ViewOptions {
  /** The view's name: the `view` label of the block's metrics and the `view/name` metadata. */
  readonly name: string;
  /** Every `expr` line; a query must make all of them true. */
  readonly expressions: readonly Expression[];
}

/**
 * Parses `view NAME { expr EXPRESSION ... }` as CoreDNS's `parse`: once per block, one name, any
 * number of `expr` lines. An expression is its line's tokens joined by single spaces (CoreDNS's
 * `strings.Join(args, " ")`), so write strings in single quotes, which the Corefile keeps; an
 * error in it is reported at its line and column in the Corefile.
 */
export function parseView(c: Controller): ViewOptions {
  let name: string | undefined;
  const expressions: Expression[] = [];
  while (c.next()) {
    if (name !== undefined) throw errOnce(c);
    const args = c.remainingArgs();
    if (args.length !== 1) throw c.argError();
    name = args[0]!;
    while (c.nextBlock()) {
      if (c.val() !== 'expr') throw c.error(`unknown property '${c.val()}'`);
      expressions.push(compileLine(c.token(), c.remainingArgTokens()));
    }
  }
  return { name: name!, expressions };
}

/** Compiles the tokens of one `expr` line; an error points into the Corefile. */
function compileLine(keyword: Token, tokens: readonly Token[]): Expression {
  const source = tokens.map((token) => token.text).join(' ');
  try {
    return compileExpression(source);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    throw errorAt(positionOf(keyword, tokens, error.offset), error.message);
  }
}

/** Where `offset` of the joined text is in the Corefile: in the token it falls in, or after the last one. */
function positionOf(keyword: Token, tokens: readonly Token[], offset: number): Token {
  let start = 0;
  for (const token of tokens) {
    const end = start + token.text.length;
    if (offset <= end) return { ...token, column: token.column + Math.max(0, offset - start) };
    start = end + 1;
  }
  const last = tokens.at(-1);
  return last === undefined ? keyword : { ...last, column: last.column + last.text.length };
}

/**
 * Offers the view to core, which routes by it, and the `view/name` metadata; adds the handler,
 * which only passes queries on (CoreDNS's `View.ServeDNS`).
 */
export function setup(c: Controller): void {
  const options = parseView(c);
  const { name, expressions } = options;
  for (const expression of expressions) {
    if (expression.type !== 'bool' && expression.type !== 'interface {}') {
      c.log.warning(`view ${name}: the expression ${JSON.stringify(expression.source)} is of type ${expression.type}, not bool: it never selects this server block`);
    }
  }
  const filter =
    expressions.length === 1
      ? expressions[0]!.test
      : (req: Parameters<Expression['test']>[0]): boolean => {
          for (const expression of expressions) if (!expression.test(req)) return false;
          return true;
        };
  c.provide(Views, { name, filter });
  c.provide(MetadataProviders, { metadata: (_req, label) => (label === 'view/name' ? name : undefined) });
  c.addHandler((next) => new ViewHandler(next));
}
