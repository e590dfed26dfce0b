/**
 * The expressions of *view*: the part of the expr-lang language (github.com/expr-lang/expr, which
 * CoreDNS compiles view expressions with) that CoreDNS documents for views, with its environment
 * of query functions (CoreDNS's plugin/pkg/expression). Compiled once at setup into closures over
 * the query, so a query runs no parser, looks nothing up by name and builds no environment map.
 *
 *   text ─► tokens ─► syntax tree (expr's precedences) ─► checked and compiled ─► (req) => value
 *                                                          types as expr's checker has them,
 *                                                          constant regexps, CIDRs and lists ready
 *
 * The subset: literals (integers, floats, strings in single, double or back quotes, `true`,
 * `false`, `nil`, arrays), calls of the environment's functions, `!`/`not`, unary `-`/`+`,
 * `&&`/`and`, `||`/`or`, `==`, `!=`, `<`, `<=`, `>`, `>=` (chains like `1 < x < 5` included),
 * `in`, `matches`, `contains`, `startsWith`, `endsWith` (each also after `not`), `+`, `-`, `*`,
 * `/`, `%`, `? :` and parentheses. Anything else expr has (builtins such as `lower`, member
 * access, maps, pipes, closures, `let`, `??`, ranges) is refused at setup with its position.
 */
import { goRegExp } from '@foghorn/core';
import type { Request } from '@foghorn/core';
import { networkContains, parseAddress, parseNetwork } from '@foghorn/core/wire';
import type { AddressWords, Network } from '@foghorn/core/wire';

/** A compile error at `offset` in the expression's text. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** A failure while evaluating (an address `incidr` cannot read): the expression is then not true, as in CoreDNS. */
class EvaluationError extends Error {}

// ---------------------------------------------------------------------------------------------
// Types, named as expr's checker (Go's reflection) names them in its messages.

interface Type {
  readonly name: string;
  /** An array's element type. */
  readonly elem?: Type;
}
const BOOL: Type = { name: 'bool' };
const INT: Type = { name: 'int' };
const FLOAT: Type = { name: 'float64' };
const STRING: Type = { name: 'string' };
const NIL: Type = { name: 'nil' };
const ANY: Type = { name: 'interface {}' };
const arrayOf = (elem: Type): Type => ({ name: `[]${elem.name}`, elem });

const isNumber = (t: Type): boolean => t === INT || t === FLOAT;
const isAny = (t: Type): boolean => t === ANY;
/** expr's `ComparableTo`: equal kinds, two numbers, nil or unknown on either side. */
function comparable(a: Type, b: Type): boolean {
  if (isAny(a) || isAny(b) || a === NIL || b === NIL) return true;
  if (isNumber(a) && isNumber(b)) return true;
  return a.name === b.name;
}

// ---------------------------------------------------------------------------------------------
// The environment: CoreDNS's plugin/pkg/expression DefaultEnv.

type Value = string | number | boolean | null | readonly Value[];
type Evaluator = (req: Request) => Value;

interface EnvFunction {
  readonly params: readonly Type[];
  readonly result: Type;
  /** The call, given the compiled arguments; constant arguments are offered for setup-time work. */
  compile(args: readonly Compiled[], at: number): Evaluator;
}

/** miekg/dns's class names (`dns.Class.String`): `CLASS` and the number for the others. */
const classNames: Readonly<Record<number, string>> = { 1: 'IN', 2: 'CS', 3: 'CH', 4: 'HS', 254: 'NONE', 255: 'ANY' };

/** The listener's address from CoreDNS's `server` label (`dns://127.0.0.1:53`): host and port, cached per label. */
const listenerAddresses = new Map<string, { readonly host: string; readonly port: string }>();
function listenerAddress(server: string): { readonly host: string; readonly port: string } {
  let address = listenerAddresses.get(server);
  if (address === undefined) {
    const match = /^[a-z]+:\/\/(?:\[([^\]]*)\]|([^:]*)):(\d+)$/.exec(server);
    // A listener on every address: Go's UDP socket reports the unspecified address `::`.
    const host = match?.[1] ?? match?.[2] ?? '';
    address = { host: host === '' ? '::' : host, port: match?.[3] ?? '0' };
    listenerAddresses.set(server, address);
  }
  return address;
}

const query = (result: Type, read: Evaluator): EnvFunction => ({ params: [], result, compile: () => read });

/** Go's `net.ParseIP` of `incidr`'s first argument, with the last one read kept: a client asks again and again. */
function addressReader(): (text: string) => AddressWords {
  let lastText = '';
  let last: AddressWords | undefined;
  return (text) => {
    if (text === lastText && last !== undefined) return last;
    const words = text.includes('%') ? undefined : parseAddress(text);
    if (words === undefined) throw new EvaluationError('first argument is not an IP address');
    // Go's `IPNet.Contains` reads an IPv4-mapped IPv6 address as IPv4.
    const folded = words.length === 4 && words[0] === 0 && words[1] === 0 && words[2] === 0xffff ? Uint32Array.of(words[3]!) : words;
    lastText = text;
    last = folded;
    return folded;
  };
}

function network(text: string): Network {
  const parsed = parseNetwork(text);
  if (parsed === undefined) throw new EvaluationError(`invalid CIDR address: ${text}`);
  return parsed;
}

const environment: ReadonlyMap<string, EnvFunction> = new Map<string, EnvFunction>([
  ['type', query(STRING, (req) => req.type)],
  ['name', query(STRING, (req) => req.qname)],
  ['class', query(STRING, (req) => classNames[req.qclass] ?? `CLASS${req.qclass}`)],
  ['proto', query(STRING, (req) => req.transport)],
  ['size', query(INT, (req) => req.raw.length)],
  ['client_ip', query(STRING, (req) => req.remoteAddress)],
  ['port', query(STRING, (req) => String(req.remotePort))],
  ['id', query(INT, (req) => req.id)],
  ['opcode', query(INT, (req) => (req.flags >> 11) & 0xf)],
  ['do', query(BOOL, (req) => req.dnssecOk)],
  ['bufsize', query(INT, (req) => req.maxResponseSize)],
  ['server_ip', query(STRING, (req) => listenerAddress(req.server).host)],
  ['server_port', query(STRING, (req) => listenerAddress(req.server).port)],
  [
    'metadata',
    {
      params: [STRING],
      result: STRING,
      compile: ([label]) => {
        const constant = label!.constant;
        if (typeof constant === 'string') return (req) => req.metadata?.get(constant) ?? '';
        const read = label!.evaluate;
        return (req) => req.metadata?.get(read(req) as string) ?? '';
      },
    },
  ],
  [
    'incidr',
    {
      params: [STRING, STRING],
      result: BOOL,
      compile: ([ip, cidr], at) => {
        const address = addressReader();
        const readIp = ip!.evaluate;
        if (typeof cidr!.constant === 'string') {
          // Checked at setup: CoreDNS would fail every query on it; here the operator hears of it.
          const net = parseNetwork(cidr!.constant);
          if (net === undefined) throw new ExpressionError(`invalid CIDR address: ${cidr!.constant}`, at);
          return (req) => networkContains(net, address(readIp(req) as string));
        }
        const readCidr = cidr!.evaluate;
        return (req) => networkContains(network(readCidr(req) as string), address(readIp(req) as string));
      },
    },
  ],
]);

/** expr's builtins, which the subset leaves out: named in the error rather than called unknown. */
const builtins = new Set(
  'all any one none filter map find findIndex findLast findLastIndex count sum groupBy sortBy reduce len type abs ceil floor round int float string trim trimPrefix trimSuffix upper lower split splitAfter replace repeat join indexOf lastIndexOf hasPrefix hasSuffix max min mean median toJSON fromJSON toBase64 fromBase64 now duration date timezone first last get take keys values toPairs fromPairs sort bitand bitor bitxor bitnand bitnot bitshl bitshr bitushr concat flatten uniq reverse'.split(' '),
);

// ---------------------------------------------------------------------------------------------
// Lexer.

const enum Kind {
  Number,
  String,
  Identifier,
  Operator,
  End,
}

interface Token {
  readonly kind: Kind;
  /** Operators and identifiers as written; a literal's source text. */
  readonly text: string;
  readonly offset: number;
  /** A string literal's value, or a number's. */
  readonly value?: string | number;
  /** A number literal is a float (`1.5`, `1e3`, `.5`). */
  readonly float?: boolean;
}

/** Words expr reads as operators. */
const wordOperators = new Set(['and', 'or', 'not', 'in', 'matches', 'contains', 'startsWith', 'endsWith']);
/** Operators, longest first so `==` is not read as `=`. */
const symbols = ['==', '!=', '<=', '>=', '&&', '||', '??', '?.', '..', '**', '::', '<', '>', '!', '+', '-', '*', '/', '%', '^', '?', ':', '(', ')', '[', ']', '{', '}', ',', '.', '|', '#', '='];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new ExpressionError('unclosed comment', i);
      i = end + 2;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const token = readNumber(text, i);
      tokens.push(token);
      i += token.text.length;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      const token = readString(text, i);
      tokens.push(token);
      i += token.text.length;
      continue;
    }
    const word = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i));
    if (word) {
      tokens.push({ kind: wordOperators.has(word[0]) ? Kind.Operator : Kind.Identifier, text: word[0], offset: i });
      i += word[0].length;
      continue;
    }
    const symbol = symbols.find((s) => text.startsWith(s, i));
    if (symbol === undefined) throw new ExpressionError(`unrecognized character: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`, i);
    tokens.push({ kind: Kind.Operator, text: symbol, offset: i });
    i += symbol.length;
  }
  tokens.push({ kind: Kind.End, text: 'EOF', offset: text.length });
  return tokens;
}

/** expr's numbers: decimal with `_` separators, `0x`, `0o`, `0b`, floats with a fraction or an exponent. */
function readNumber(text: string, at: number): Token {
  const rest = text.slice(at);
  const radix = /^0([xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)/.exec(rest);
  if (radix) {
    const digits = radix[1]!.slice(1).replaceAll('_', '');
    const base = { x: 16, o: 8, b: 2 }[radix[1]![0]!.toLowerCase() as 'x' | 'o' | 'b'];
    return { kind: Kind.Number, text: radix[0], offset: at, value: parseInt(digits, base) };
  }
  const decimal = /^(?:[0-9][0-9_]*)?(?:\.(?!\.)[0-9_]*)?(?:[eE][+-]?[0-9_]+)?/.exec(rest)![0];
  const float = /[.eE]/.test(decimal);
  const value = Number(decimal.replaceAll('_', ''));
  if (Number.isNaN(value)) throw new ExpressionError(`invalid number: ${decimal}`, at);
  return { kind: Kind.Number, text: decimal, offset: at, value, float };
}

const escapes: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/** A quoted string: Go's escapes in `'...'` and `"..."`, none in a raw `` `...` ``. */
function readString(text: string, at: number): Token {
  const quote = text[at]!;
  let value = '';
  let i = at + 1;
  for (;;) {
    if (i >= text.length) throw new ExpressionError('literal not terminated', at);
    const c = text[i]!;
    if (c === quote) break;
    if (c === '\\' && quote !== '`') {
      const e = text[i + 1] ?? '';
      const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (hex > 0) {
        const digits = text.slice(i + 2, i + 2 + hex);
        if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new ExpressionError('invalid char escape', i);
        value += String.fromCodePoint(parseInt(digits, 16));
        i += 2 + hex;
      } else if (/[0-7]/.test(e)) {
        const digits = text.slice(i + 1, i + 4);
        if (!/^[0-7]{3}$/.test(digits)) throw new ExpressionError('invalid char escape', i);
        value += String.fromCharCode(parseInt(digits, 8));
        i += 4;
      } else if (escapes[e] !== undefined) {
        value += escapes[e];
        i += 2;
      } else {
        throw new ExpressionError('invalid char escape', i);
      }
      continue;
    }
    if (c === '\n' && quote !== '`') throw new ExpressionError('literal not terminated', at);
    value += c;
    i++;
  }
  return { kind: Kind.String, text: text.slice(at, i + 1), offset: at, value };
}

// ---------------------------------------------------------------------------------------------
// Parser: expr's precedence climbing (parser/parser.go), over the subset.

type Node =
  | { readonly kind: 'literal'; readonly at: number; readonly value: Value; readonly type: Type }
  | { readonly kind: 'array'; readonly at: number; readonly items: readonly Node[] }
  | { readonly kind: 'call'; readonly at: number; readonly name: string; readonly args: readonly Node[] }
  | { readonly kind: 'unary'; readonly at: number; readonly op: string; readonly operand: Node }
  | { readonly kind: 'binary'; readonly at: number; readonly op: string; readonly left: Node; readonly right: Node }
  | { readonly kind: 'conditional'; readonly at: number; readonly test: Node; readonly then: Node; readonly otherwise: Node };

/** expr's operator table (parser/operator/operator.go), for the operators of the subset. */
const binaryPrecedence: ReadonlyMap<string, number> = new Map([
  ['or', 10],
  ['||', 10],
  ['and', 15],
  ['&&', 15],
  ['==', 20],
  ['!=', 20],
  ['<', 20],
  ['>', 20],
  ['>=', 20],
  ['<=', 20],
  ['in', 20],
  ['matches', 20],
  ['contains', 20],
  ['startsWith', 20],
  ['endsWith', 20],
  ['+', 30],
  ['-', 30],
  ['*', 60],
  ['/', 60],
  ['%', 60],
]);
const unaryPrecedence: ReadonlyMap<string, number> = new Map([
  ['not', 50],
  ['!', 50],
  ['-', 90],
  ['+', 90],
]);
/** Operators expr has and the subset does not. */
const unsupported: ReadonlyMap<string, string> = new Map([
  ['|', 'the pipe operator'],
  ['??', 'the nil coalescing operator ??'],
  ['..', 'ranges'],
  ['**', 'exponents'],
  ['^', 'exponents'],
  ['.', 'member access'],
  ['?.', 'member access'],
  ['[', 'indexing and slicing'],
  ['{', 'maps'],
  ['#', 'closures'],
  ['::', 'qualified calls'],
  ['=', 'assignment'],
]);
const negatable = new Set(['in', 'matches', 'contains', 'startsWith', 'endsWith']);
const comparisons = new Set(['<', '>', '<=', '>=']);

class Parser {
  private i = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parse(): Node {
    const node = this.expression(0);
    const rest = this.current;
    if (rest.kind !== Kind.End) throw this.unexpected(rest);
    return node;
  }

  private get current(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private is(text: string): boolean {
    const token = this.current;
    return token.kind === Kind.Operator && token.text === text;
  }

  private expect(text: string): void {
    if (!this.is(text)) throw this.unexpected(this.current);
    this.i++;
  }

  private unexpected(token: Token): ExpressionError {
    const what = unsupported.get(token.text);
    if (token.kind === Kind.Operator && what !== undefined) return new ExpressionError(`${what} (${token.text}) is not supported in view expressions`, token.offset);
    if (token.kind === Kind.End) return new ExpressionError('unexpected end of expression', token.offset);
    return new ExpressionError(`unexpected token ${describe(token)}`, token.offset);
  }

  private expression(precedence: number): Node {
    if (precedence === 0 && this.current.kind === Kind.Identifier && (this.current.text === 'let' || this.current.text === 'if')) {
      throw new ExpressionError(`'${this.current.text}' is not supported in view expressions`, this.current.offset);
    }
    let left = this.primary();
    for (;;) {
      let token = this.current;
      if (token.kind !== Kind.Operator) break;
      let negate: Token | undefined;
      if (token.text === 'not') {
        // `a not in b`, `a not matches b`: the negated form of the operator after `not`.
        const after = this.tokens[this.i + 1]!;
        if (after.kind !== Kind.Operator || !negatable.has(after.text)) throw this.unexpected(after);
        if (binaryPrecedence.get(after.text)! < precedence) break;
        negate = token;
        this.i++;
        token = this.current;
      }
      const opPrecedence = binaryPrecedence.get(token.text);
      if (opPrecedence === undefined) {
        if (unsupported.has(token.text)) throw this.unexpected(token);
        break;
      }
      if (opPrecedence < precedence) break;
      this.i++;
      if (comparisons.has(token.text)) {
        left = this.comparison(left, token, opPrecedence);
        continue;
      }
      const right = this.expression(opPrecedence + 1);
      left = { kind: 'binary', at: token.offset, op: token.text, left, right };
      if (negate !== undefined) left = { kind: 'unary', at: negate.offset, op: 'not', operand: left };
    }
    if (precedence === 0) left = this.conditional(left);
    return left;
  }

  /** `a < b < c` is `a < b && b < c`, as expr's `parseComparison` makes it. */
  private comparison(left: Node, token: Token, precedence: number): Node {
    let root: Node | undefined;
    for (;;) {
      const right = this.expression(precedence + 1);
      const node: Node = { kind: 'binary', at: token.offset, op: token.text, left, right };
      root = root === undefined ? node : { kind: 'binary', at: token.offset, op: '&&', left: root, right: node };
      left = right;
      token = this.current;
      if (token.kind !== Kind.Operator || !comparisons.has(token.text)) return root;
      this.i++;
    }
  }

  private conditional(test: Node): Node {
    while (this.is('?')) {
      const at = this.next().offset;
      let then: Node;
      let otherwise: Node;
      if (this.is(':')) {
        // `a ?: b`: a when it is true.
        this.i++;
        then = test;
        otherwise = this.expression(0);
      } else {
        then = this.expression(0);
        this.expect(':');
        otherwise = this.expression(0);
      }
      test = { kind: 'conditional', at, test, then, otherwise };
    }
    return test;
  }

  private primary(): Node {
    const token = this.current;
    if (token.kind === Kind.Operator) {
      const precedence = unaryPrecedence.get(token.text);
      if (precedence !== undefined) {
        this.i++;
        const operand = this.expression(precedence);
        return this.postfix({ kind: 'unary', at: token.offset, op: token.text === '!' ? 'not' : token.text, operand });
      }
      if (token.text === '(') {
        this.i++;
        const inner = this.expression(0);
        this.expect(')');
        return this.postfix(inner);
      }
      if (token.text === '[') return this.postfix(this.array());
      throw this.unexpected(token);
    }
    this.i++;
    switch (token.kind) {
      case Kind.Number:
        return this.postfix({ kind: 'literal', at: token.offset, value: token.value as number, type: token.float ? FLOAT : INT });
      case Kind.String:
        return this.postfix({ kind: 'literal', at: token.offset, value: token.value as string, type: STRING });
      case Kind.Identifier:
        return this.postfix(this.identifier(token));
      default:
        throw this.unexpected(token);
    }
  }

  private identifier(token: Token): Node {
    switch (token.text) {
      case 'true':
        return { kind: 'literal', at: token.offset, value: true, type: BOOL };
      case 'false':
        return { kind: 'literal', at: token.offset, value: false, type: BOOL };
      case 'nil':
        return { kind: 'literal', at: token.offset, value: null, type: NIL };
    }
    if (!this.is('(')) {
      if (environment.has(token.text)) throw new ExpressionError(`'${token.text}' is a function: call it as ${token.text}()`, token.offset);
      throw new ExpressionError(`unknown name ${token.text}`, token.offset);
    }
    this.i++;
    const args: Node[] = [];
    while (!this.is(')')) {
      args.push(this.expression(0));
      if (!this.is(',')) break;
      this.i++;
    }
    this.expect(')');
    return { kind: 'call', at: token.offset, name: token.text, args };
  }

  private array(): Node {
    const at = this.next().offset;
    const items: Node[] = [];
    while (!this.is(']')) {
      items.push(this.expression(0));
      if (!this.is(',')) break;
      this.i++;
    }
    this.expect(']');
    return { kind: 'array', at, items };
  }

  /** Member access, indexing and slicing follow a primary in expr: not in the subset. */
  private postfix(node: Node): Node {
    const token = this.current;
    if (token.kind === Kind.Operator && (token.text === '.' || token.text === '?.' || token.text === '[')) throw this.unexpected(token);
    return node;
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case Kind.Number:
      return `Number("${token.text}")`;
    case Kind.String:
      return `String(${JSON.stringify(token.value)})`;
    case Kind.Identifier:
      return `Identifier("${token.text}")`;
    case Kind.Operator:
      return `Operator("${token.text}")`;
    default:
      return 'EOF';
  }
}

// ---------------------------------------------------------------------------------------------
// Checker and compiler in one pass: each node's type as expr's checker gives it, and its closure.

/** A compiled node: its type, its evaluator, and its value when known at setup. */
interface Compiled {
  readonly type: Type;
  readonly evaluate: Evaluator;
  /** Set for literals and for arrays of them. */
  readonly constant?: Value;
}

const constant = (type: Type, value: Value): Compiled => ({ type, evaluate: () => value, constant: value });

function mismatch(op: string, left: Type, right: Type, at: number): ExpressionError {
  return new ExpressionError(`invalid operation: ${op} (mismatched types ${left.name} and ${right.name})`, at);
}

function equal(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]!));
  return a === b;
}

function compileNode(node: Node): Compiled {
  switch (node.kind) {
    case 'literal':
      return constant(node.type, node.value);
    case 'array':
      return compileArray(node.items);
    case 'call':
      return compileCall(node.name, node.args, node.at);
    case 'unary':
      return compileUnary(node.op, compileNode(node.operand), node.at);
    case 'binary':
      return compileBinary(node.op, compileNode(node.left), compileNode(node.right), node.at);
    case 'conditional': {
      const test = compileNode(node.test);
      if (test.type !== BOOL && !isAny(test.type)) throw new ExpressionError(`non-bool expression (type ${test.type.name}) used as condition`, node.at);
      const then = compileNode(node.then);
      const otherwise = compileNode(node.otherwise);
      const t = test.evaluate;
      const a = then.evaluate;
      const b = otherwise.evaluate;
      return { type: then.type.name === otherwise.type.name ? then.type : ANY, evaluate: (req) => (t(req) === true ? a(req) : b(req)) };
    }
  }
}

function compileArray(items: readonly Node[]): Compiled {
  const compiled = items.map(compileNode);
  const first = compiled[0]?.type;
  const elem = first !== undefined && compiled.every((item) => item.type.name === first.name) ? first : ANY;
  if (compiled.every((item) => 'constant' in item)) return constant(arrayOf(elem), compiled.map((item) => item.constant!));
  const evaluators = compiled.map((item) => item.evaluate);
  return { type: arrayOf(elem), evaluate: (req) => evaluators.map((evaluate) => evaluate(req)) };
}

function compileCall(name: string, argNodes: readonly Node[], at: number): Compiled {
  const fn = environment.get(name);
  if (fn === undefined) {
    if (builtins.has(name)) throw new ExpressionError(`the builtin ${name}() is not supported in view expressions`, at);
    throw new ExpressionError(`unknown func ${name}`, at);
  }
  const args = argNodes.map(compileNode);
  if (args.length < fn.params.length) throw new ExpressionError(`not enough arguments to call ${name}`, at);
  if (args.length > fn.params.length) throw new ExpressionError(`too many arguments to call ${name}`, at);
  args.forEach((arg, i) => {
    const want = fn.params[i]!;
    if (arg.type.name !== want.name && !isAny(arg.type)) throw new ExpressionError(`cannot use ${arg.type.name} as argument (type ${want.name}) to call ${name}`, argNodes[i]!.at);
  });
  return { type: fn.result, evaluate: fn.compile(args, at) };
}

function compileUnary(op: string, operand: Compiled, at: number): Compiled {
  const read = operand.evaluate;
  if (op === 'not') {
    if (operand.type !== BOOL && !isAny(operand.type)) throw new ExpressionError(`invalid operation: ${op} (mismatched type ${operand.type.name})`, at);
    return { type: BOOL, evaluate: (req) => !(read(req) as boolean) };
  }
  if (!isNumber(operand.type) && !isAny(operand.type)) throw new ExpressionError(`invalid operation: ${op} (mismatched type ${operand.type.name})`, at);
  return { type: operand.type, evaluate: op === '-' ? (req) => -(read(req) as number) : read };
}

function compileBinary(op: string, left: Compiled, right: Compiled, at: number): Compiled {
  const l = left.evaluate;
  const r = right.evaluate;
  const lt = left.type;
  const rt = right.type;
  const unknown = isAny(lt) || isAny(rt);
  switch (op) {
    case '||':
    case 'or':
    case '&&':
    case 'and': {
      if (!((lt === BOOL || isAny(lt)) && (rt === BOOL || isAny(rt)))) throw mismatch(op, lt, rt, at);
      const or = op === '||' || op === 'or';
      return { type: BOOL, evaluate: or ? (req) => l(req) === true || r(req) === true : (req) => l(req) === true && r(req) === true };
    }
    case '==':
    case '!=': {
      if (!comparable(lt, rt)) throw mismatch(op, lt, rt, at);
      const c = right.constant;
      // The usual `name() == 'x'`: a constant on the right is compared without a call.
      if (typeof c === 'string' || typeof c === 'number' || typeof c === 'boolean' || c === null) {
        return { type: BOOL, evaluate: op === '==' ? (req) => l(req) === c : (req) => l(req) !== c };
      }
      return { type: BOOL, evaluate: op === '==' ? (req) => equal(l(req), r(req)) : (req) => !equal(l(req), r(req)) };
    }
    case '<':
    case '>':
    case '<=':
    case '>=': {
      if (!((isNumber(lt) && isNumber(rt)) || (lt === STRING && rt === STRING) || unknown)) throw mismatch(op, lt, rt, at);
      const compare: (a: number | string, b: number | string) => boolean =
        op === '<' ? (a, b) => a < b : op === '>' ? (a, b) => a > b : op === '<=' ? (a, b) => a <= b : (a, b) => a >= b;
      return { type: BOOL, evaluate: (req) => compare(l(req) as number, r(req) as number) };
    }
    case 'in': {
      if (rt.elem === undefined && !isAny(rt)) throw mismatch(op, lt, rt, at);
      if (rt.elem !== undefined && !comparable(lt, rt.elem)) throw new ExpressionError(`cannot use ${lt.name} as type ${rt.elem.name} in array`, at);
      const c = right.constant;
      if (Array.isArray(c) && c.every((item) => typeof item !== 'object' || item === null)) {
        const set = new Set<Value>(c as Value[]);
        return { type: BOOL, evaluate: (req) => set.has(l(req)) };
      }
      return {
        type: BOOL,
        evaluate: (req) => {
          const list = r(req);
          if (!Array.isArray(list)) throw new EvaluationError(`operator in not defined on ${typeof list}`);
          const item = l(req);
          return list.some((each: Value) => equal(each, item));
        },
      };
    }
    case 'matches': {
      if (!((lt === STRING || isAny(lt)) && (rt === STRING || isAny(rt)))) throw mismatch(op, lt, rt, at);
      if (typeof right.constant === 'string') {
        let regexp: RegExp;
        try {
          regexp = goRegExp(right.constant);
        } catch (error) {
          throw new ExpressionError((error as Error).message, at);
        }
        return { type: BOOL, evaluate: (req) => regexp.test(l(req) as string) };
      }
      return {
        type: BOOL,
        evaluate: (req) => {
          let regexp: RegExp;
          try {
            regexp = goRegExp(r(req) as string);
          } catch (error) {
            throw new EvaluationError((error as Error).message);
          }
          return regexp.test(l(req) as string);
        },
      };
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith': {
      if (!((lt === STRING || isAny(lt)) && (rt === STRING || isAny(rt)))) throw mismatch(op, lt, rt, at);
      const test: (a: string, b: string) => boolean = op === 'contains' ? (a, b) => a.includes(b) : op === 'startsWith' ? (a, b) => a.startsWith(b) : (a, b) => a.endsWith(b);
      return { type: BOOL, evaluate: (req) => test(l(req) as string, r(req) as string) };
    }
    case '+':
      if (lt === STRING && rt === STRING) return { type: STRING, evaluate: (req) => (l(req) as string) + (r(req) as string) };
      return arithmetic(op, left, right, at, (a, b) => a + b);
    case '-':
      return arithmetic(op, left, right, at, (a, b) => a - b);
    case '*':
      return arithmetic(op, left, right, at, (a, b) => a * b);
    case '/': {
      if (!((isNumber(lt) && isNumber(rt)) || unknown)) throw mismatch(op, lt, rt, at);
      return { type: FLOAT, evaluate: (req) => (l(req) as number) / (r(req) as number) };
    }
    case '%': {
      if (!((lt === INT && rt === INT) || unknown)) throw mismatch(op, lt, rt, at);
      return {
        type: INT,
        evaluate: (req) => {
          const divisor = r(req) as number;
          if (divisor === 0) throw new EvaluationError('integer divide by zero');
          return (l(req) as number) % divisor;
        },
      };
    }
    default:
      throw new ExpressionError(`unknown operator (${op})`, at);
  }
}

/** `+ - *` on numbers: int when both sides are, float64 otherwise (expr's `PromoteNumericNature`). */
function arithmetic(op: string, left: Compiled, right: Compiled, at: number, apply: (a: number, b: number) => number): Compiled {
  const lt = left.type;
  const rt = right.type;
  if (!((isNumber(lt) && isNumber(rt)) || isAny(lt) || isAny(rt))) throw mismatch(op, lt, rt, at);
  const l = left.evaluate;
  const r = right.evaluate;
  return { type: lt === INT && rt === INT ? INT : isAny(lt) || isAny(rt) ? ANY : FLOAT, evaluate: (req) => apply(l(req) as number, r(req) as number) };
}

// ---------------------------------------------------------------------------------------------

/** A compiled view expression. */
export interface Expression {
  /** The text it was compiled from. */
  readonly source: string;
  /** Its type as expr's checker sees it: a view passes only on `bool` true. */
  readonly type: string;
  /**
   * Whether the query passes: the expression evaluates to `true`. Anything else, including a
   * failure while evaluating (an `incidr` address that is not one), is false, as in CoreDNS's
   * `View.Filter`.
   */
  test(req: Request): boolean;
}

/** Compiles `source`, or throws an {@link ExpressionError} with the offset of what is wrong. */
export function compileExpression(source: string): Expression {
  const tree = new Parser(tokenize(source)).parse();
  const compiled = compileNode(tree);
  const evaluate = compiled.evaluate;
  return {
    source,
    type: compiled.type.name,
    test(req) {
      try {
        return evaluate(req) === true;
      } catch {
        // expr's VM turns any failure of a run into an error, and View.Filter reads an error as false.
        return false;
      }
    },
  };
}
