/**
 * The part of Go's text/template that CoreDNS's template examples use: text with actions
 * `{{ PIPELINE }}` whose pipelines are fields (`.Name`, `.Group.a`, `.Question.Name`), method calls
 * (`.Meta "key"`), the functions `index`, `len`, `print` and `parseInt`, string and number
 * literals, parentheses and `|`. Trim markers (`{{- -}}`) and comment actions work as in Go.
 *
 * Everything else of text/template (`if`, `range`, `with`, variables, other functions) is refused
 * when the template is compiled, with a message saying so, so a Corefile never fails later than
 * CoreDNS's would. Errors keep Go's wording: `template: answer:1: unclosed action`,
 * `template: answer:1:26: executing "answer" at <index .Match 2>: error calling index: ...`.
 */

/** A value a template can reach: the data, strings, numbers, lists, maps, or Go's "no value". */
export type Value = string | number | bigint | boolean | null | readonly Value[] | ReadonlyMap<string, Value> | Struct | MethodValue | typeof noValue;
import { errorMessage } from '@foghorn/core';

/** What `.Name` on a struct reads. `type` is what Go's errors call it (`*template.templateData`). */
export interface Struct {
  readonly [structType]: string;
  readonly [key: string]: Value;
}

/** A method: `.Meta "key"`. */
export interface MethodValue {
  readonly [methodArity]: number;
  (...args: Value[]): Value;
}

export const structType = Symbol('go type');
export const methodArity = Symbol('method arity');
/** Go's invalid value (a missing map key): printed `<no value>`. */
export const noValue = Symbol('no value');

type Arg =
  | { kind: 'field'; path: string[]; pos: number }
  | { kind: 'dot'; pos: number }
  | { kind: 'func'; name: string; pos: number }
  | { kind: 'literal'; value: Value; text: string; pos: number }
  | { kind: 'pipe'; pipe: Command[]; pos: number };
type Command = { args: Arg[]; pos: number };
type Node = { kind: 'text'; text: string } | { kind: 'action'; pipe: Command[]; pos: number };

/** Functions of text/template CoreDNS offers besides `parseInt`; the ones not here are refused. */
const goBuiltins = new Set(['and', 'call', 'eq', 'ge', 'gt', 'html', 'index', 'js', 'le', 'len', 'lt', 'ne', 'not', 'or', 'print', 'printf', 'println', 'slice', 'urlquery']);
const keywords = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue', 'nil', 'true', 'false']);

type Func = (args: Value[]) => Value;

const functions: ReadonlyMap<string, Func> = new Map<string, Func>([
  ['index', indexOf],
  ['len', (args) => {
    arity('len', args, 1);
    const v = args[0]!;
    if (typeof v === 'string') return Buffer.byteLength(v);
    if (Array.isArray(v)) return v.length;
    if (v instanceof Map) return v.size;
    throw new Error(`error calling len: len of type ${goType(v)}`);
  }],
  ['print', (args) => args.map((a, i) => (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string' ? ' ' : '') + show(a)).join('')],
  ['parseInt', parseUint],
]);

function arity(name: string, args: Value[], want: number): void {
  if (args.length !== want) throw new Error(`wrong number of args for ${name}: want ${want} got ${args.length}`);
}

function goType(v: Value): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'int';
  if (typeof v === 'bigint') return 'uint64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]string';
  if (v instanceof Map) return 'map[string]string';
  if (v === noValue || v === null) return 'nil';
  if (typeof v === 'function') return 'func';
  return (v as Struct)[structType];
}

function indexOf(args: Value[]): Value {
  if (args.length < 1) throw new Error('wrong number of args for index: want at least 1 got 0');
  let v = args[0]!;
  for (const key of args.slice(1)) {
    if (Array.isArray(v)) {
      if (typeof key !== 'number') throw new Error(`error calling index: cannot index slice/array with type ${goType(key)}`);
      if (key < 0 || key >= v.length) throw new Error(`error calling index: index out of range: ${key}`);
      v = (v as readonly Value[])[key]!;
    } else if (v instanceof Map) {
      if (typeof key !== 'string') throw new Error(`error calling index: value has type ${goType(key)}; should be string`);
      // index gives a missing key's zero value, where a field access gives no value.
      v = (v as ReadonlyMap<string, Value>).get(key) ?? '';
    } else {
      throw new Error(`error calling index: can't index item of type ${goType(v)}`);
    }
  }
  return v;
}

/** `parseInt S BASE BITS`: Go's `strconv.ParseUint`, which CoreDNS registers under that name. */
function parseUint(args: Value[]): Value {
  arity('parseInt', args, 3);
  const [s, base, bits] = args;
  if (typeof s !== 'string') throw new Error(`wrong type for value; expected string; got ${goType(s!)}`);
  if (typeof base !== 'number' || typeof bits !== 'number') throw new Error('wrong type for value; expected int');
  const fail = (why: string): Error => new Error(`error calling parseInt: strconv.ParseUint: parsing ${JSON.stringify(s)}: ${why}`);
  if (bits < 0 || bits > 64) throw fail(`invalid bit size ${bits}`);
  let text = s.replaceAll('_', '');
  let radix = base;
  if (base === 0) {
    radix = 10;
    if (/^0[xX]/.test(text)) [radix, text] = [16, text.slice(2)];
    else if (/^0[bB]/.test(text)) [radix, text] = [2, text.slice(2)];
    else if (/^0[oO]/.test(text)) [radix, text] = [8, text.slice(2)];
    else if (/^0./.test(text)) [radix, text] = [8, text.slice(1)];
  } else if (base < 2 || base > 36) {
    throw fail(`invalid base ${base}`);
  }
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, radix);
  const lower = text.toLowerCase();
  if (lower === '') throw fail('invalid syntax');
  for (let i = 0; i < lower.length; i++) if (!digits.includes(lower[i]!)) throw fail('invalid syntax');
  // Numbers below 2^53 are exact as doubles; only longer ones need BigInt.
  const small = parseInt(lower, radix);
  const n = Number.isSafeInteger(small) ? small : [...lower].reduce((acc, c) => acc * BigInt(radix) + BigInt(digits.indexOf(c)), 0n);
  const limit = bits === 0 ? 64 : bits;
  if (typeof n === 'number' ? n >= 2 ** limit : n >= 1n << BigInt(limit)) throw fail('value out of range');
  return n;
}

/** How Go's fmt prints a value in a template. */
function show(v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v === noValue) return '<no value>';
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(show).join(' ')}]`;
  if (v instanceof Map) return `map[${[...v.keys()].sort().map((k) => `${k}:${show(v.get(k)!)}`).join(' ')}]`;
  if (typeof v === 'function') return '<func>';
  const s = v as Struct;
  return `{${Object.keys(s).map((k) => show(s[k]!)).join(' ')}}`;
}

/** A compile error, in Go's `template: NAME:LINE: MESSAGE` form. */
export class TemplateError extends Error {}

/** A compiled template. */
export class GoTemplate {
  private constructor(
    readonly name: string,
    private readonly text: string,
    private readonly nodes: readonly Node[],
    /**
     * The fields of dot the template reads (`Name` for `.Name`, `Group` for `.Group.a`), or null
     * when it uses dot itself: the caller need not build the others.
     */
    readonly fields: ReadonlySet<string> | null,
  ) {}

  /** Compiles `text`; throws a {@link TemplateError} for a broken or unsupported template. */
  static compile(name: string, text: string): GoTemplate {
    const parser = new Parser(name, text);
    const nodes = parser.parse();
    return new GoTemplate(name, text, nodes, parser.usesDot ? null : parser.roots);
  }

  /** The template as Go prints its parse tree (`Tree.Root.String()`): CoreDNS's `template` metric label. */
  toString(): string {
    return this.nodes.map((n) => (n.kind === 'text' ? n.text : `{{${pipeText(n.pipe)}}}`)).join('');
  }

  /** Renders the template with `data` as dot; throws Go's execution error. */
  execute(data: Value): string {
    let out = '';
    for (const node of this.nodes) {
      if (node.kind === 'text') out += node.text;
      else out += show(this.pipe(node.pipe, data));
    }
    return out;
  }

  private pipe(commands: readonly Command[], dot: Value): Value {
    let last: Value | undefined;
    for (const command of commands) last = this.command(command, dot, last);
    return last!;
  }

  private command(command: Command, dot: Value, piped: Value | undefined): Value {
    const [head, ...rest] = command.args;
    const fail = (message: string): Error => {
      const { line, col } = this.where(command.pos);
      return new Error(`template: ${this.name}:${line}:${col}: executing "${this.name}" at <${commandText(command)}>: ${message}`);
    };
    const args = (): Value[] => {
      const values = rest.map((a) => this.arg(a, dot, fail));
      if (piped !== undefined) values.push(piped);
      return values;
    };
    if (head!.kind === 'func') {
      try {
        return functions.get(head!.name)!(args());
      } catch (error) {
        const message = errorMessage(error);
        throw fail(message.startsWith('error calling') || message.startsWith('wrong') ? message : `error calling ${head!.name}: ${message}`);
      }
    }
    const value = this.arg(head!, dot, fail);
    if (typeof value === 'function') {
      const values = args();
      const want = value[methodArity];
      if (values.length !== want) throw fail(`wrong number of args for ${head!.kind === 'field' ? head!.path.at(-1) : 'method'}: want ${want} got ${values.length}`);
      return value(...values);
    }
    if (rest.length > 0 || piped !== undefined) throw fail(`can't give argument to non-function ${argText(head!)}`);
    return value;
  }

  private arg(arg: Arg, dot: Value, fail: (message: string) => Error): Value {
    switch (arg.kind) {
      case 'dot':
        return dot;
      case 'literal':
        return arg.value;
      case 'pipe':
        return this.pipe(arg.pipe, dot);
      case 'func':
        return functions.get(arg.name)!([]);
      case 'field': {
        let v = dot;
        for (const name of arg.path) {
          if (v instanceof Map) v = (v as ReadonlyMap<string, Value>).get(name) ?? noValue;
          else if (v !== null && typeof v === 'object' && !Array.isArray(v) && structType in v && Object.hasOwn(v, name)) v = (v as Struct)[name]!;
          else if (v === noValue || v === null) throw fail(`nil pointer evaluating ${goType(v)}.${name}`);
          else throw fail(`can't evaluate field ${name} in type ${goType(v)}`);
        }
        return v;
      }
    }
  }

  private where(pos: number): { line: number; col: number } {
    const before = this.text.slice(0, pos);
    const newline = before.lastIndexOf('\n');
    return { line: before.split('\n').length, col: pos - newline - 1 };
  }
}

function argText(arg: Arg): string {
  switch (arg.kind) {
    case 'dot':
      return '.';
    case 'field':
      return `.${arg.path.join('.')}`;
    case 'func':
      return arg.name;
    case 'literal':
      return arg.text;
    case 'pipe':
      return `(${pipeText(arg.pipe)})`;
  }
}

function commandText(command: Command): string {
  return command.args.map(argText).join(' ');
}

function pipeText(pipe: readonly Command[]): string {
  return pipe.map(commandText).join(' | ');
}

/** Go's lexer and parser for the supported subset. */
class Parser {
  private i = 0;
  /** First names of the field chains read, and whether dot itself is used. */
  readonly roots = new Set<string>();
  usesDot = false;

  constructor(
    private readonly name: string,
    private readonly text: string,
  ) {}

  private fail(message: string, pos = this.i): TemplateError {
    const line = this.text.slice(0, pos).split('\n').length;
    return new TemplateError(`template: ${this.name}:${line}: ${message}`);
  }

  parse(): Node[] {
    const nodes: Node[] = [];
    const text = this.text;
    let trimNext = false;
    while (this.i < text.length) {
      const open = text.indexOf('{{', this.i);
      let chunk = open < 0 ? text.slice(this.i) : text.slice(this.i, open);
      if (trimNext) chunk = chunk.replace(/^\s+/, '');
      const trimBefore = open >= 0 && text[open + 2] === '-' && /\s/.test(text[open + 3] ?? '');
      if (trimBefore) chunk = chunk.replace(/\s+$/, '');
      if (chunk !== '') nodes.push({ kind: 'text', text: chunk });
      if (open < 0) break;
      this.i = open + (trimBefore ? 4 : 2);
      this.skipSpace();
      if (text.startsWith('/*', this.i)) {
        const end = text.indexOf('*/', this.i);
        if (end < 0) throw this.fail('unclosed comment');
        this.i = end + 2;
        this.skipSpace();
        trimNext = this.closeAction();
        continue;
      }
      const pos = this.i;
      const pipe = this.pipeline(false);
      trimNext = this.closeAction();
      nodes.push({ kind: 'action', pipe, pos });
    }
    return nodes;
  }

  /** Reads `}}` or ` -}}`; true when it trims the following text. */
  private closeAction(): boolean {
    const text = this.text;
    if (text.startsWith('-}}', this.i) && /\s/.test(text[this.i - 1] ?? '')) {
      this.i += 3;
      return true;
    }
    if (text.startsWith('}}', this.i)) {
      this.i += 2;
      return false;
    }
    if (this.i >= text.length) throw this.fail('unclosed action');
    throw this.fail(`unexpected "${text[this.i]}" in operand`);
  }

  private skipSpace(): void {
    while (this.i < this.text.length && /[ \t\r\n]/.test(this.text[this.i]!)) this.i++;
  }

  private atEnd(inParens: boolean): boolean {
    const text = this.text;
    if (this.i >= text.length) throw this.fail('unclosed action');
    if (inParens) return text[this.i] === ')';
    return text.startsWith('}}', this.i) || (text.startsWith('-}}', this.i) && /\s/.test(text[this.i - 1] ?? ''));
  }

  private pipeline(inParens: boolean): Command[] {
    const commands: Command[] = [];
    for (;;) {
      this.skipSpace();
      const pos = this.i;
      const args: Arg[] = [];
      for (;;) {
        this.skipSpace();
        if (this.atEnd(inParens) || this.text[this.i] === '|') break;
        args.push(this.operand());
      }
      if (args.length === 0) throw this.fail(commands.length === 0 ? 'missing value for command' : 'missing command', pos);
      const head = args[0]!;
      if (head.kind === 'literal' && args.length > 1) throw this.fail(`can't give argument to non-function ${head.text}`, pos);
      commands.push({ args, pos });
      if (this.text[this.i] !== '|') break;
      this.i++;
    }
    return commands;
  }

  private operand(): Arg {
    const text = this.text;
    const pos = this.i;
    const c = text[pos]!;
    if (c === '(') {
      this.i++;
      const pipe = this.pipeline(true);
      this.i++;
      return { kind: 'pipe', pipe, pos };
    }
    if (c === '"' || c === '`') return this.stringLiteral();
    if (c === '$') throw this.fail('template variables ($) are not supported by Foghorn\'s template engine');
    if (c === '.') {
      const match = /^(\.[A-Za-z_][A-Za-z0-9_]*)+/.exec(text.slice(pos));
      if (match === null) {
        this.i++;
        this.usesDot = true;
        return { kind: 'dot', pos };
      }
      this.i += match[0].length;
      const path = match[0].slice(1).split('.');
      if (path[0] === 'Message' && !(path.length === 2 && messageFields.has(path[1]!))) {
        throw this.fail(`.${path.join('.')} is not supported by Foghorn's template engine (use .Question.Name, .Question.Qtype, .Question.Qclass, .Message.Id)`, pos);
      }
      this.roots.add(path[0]!);
      return { kind: 'field', path, pos };
    }
    const number = /^[-+]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*)(?![\w.])/.exec(text.slice(pos));
    if (number) {
      this.i += number[0].length;
      const value = Number(number[0].replaceAll('_', '').replace(/^([-+]?)0[oO]/, '$10o'));
      if (!Number.isSafeInteger(value)) throw this.fail(`number ${number[0]} is not supported by Foghorn's template engine`, pos);
      return { kind: 'literal', value, text: number[0], pos };
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(pos));
    if (word) {
      this.i += word[0].length;
      const name = word[0];
      if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true', text: name, pos };
      if (keywords.has(name)) throw this.fail(`{{ ${name} }} is not supported by Foghorn's template engine`, pos);
      if (functions.has(name)) return { kind: 'func', name, pos };
      if (goBuiltins.has(name)) throw this.fail(`function "${name}" is not supported by Foghorn's template engine`, pos);
      throw this.fail(`function "${name}" not defined`, pos);
    }
    throw this.fail(`unexpected "${c}" in command`, pos);
  }

  private stringLiteral(): Arg {
    const text = this.text;
    const pos = this.i;
    const quote = text[pos]!;
    let end = pos + 1;
    while (end < text.length && text[end] !== quote) {
      if (quote === '"' && text[end] === '\\') end++;
      if (quote === '"' && text[end] === '\n') throw this.fail('unterminated quoted string', pos);
      end++;
    }
    if (end >= text.length) throw this.fail(quote === '"' ? 'unterminated quoted string' : 'unterminated raw quoted string', pos);
    const raw = text.slice(pos, end + 1);
    this.i = end + 1;
    let value = raw.slice(1, -1);
    if (quote === '"') {
      try {
        value = JSON.parse(raw.replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1').replace(/\\a/g, '\\u0007').replace(/\\v/g, '\\u000b')) as string;
      } catch {
        throw this.fail(`bad quoted string ${raw}`, pos);
      }
    }
    return { kind: 'literal', value, text: raw, pos };
  }
}

/** `.Message` fields a template may read (the whole message is not printable here). */
const messageFields = new Set(['Id', 'Opcode', 'RecursionDesired', 'CheckingDisabled', 'AuthenticatedData']);
