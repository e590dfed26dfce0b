/**
 * The public declarations of `@foghorn/core`'s entry points, printed from their built `.d.ts`
 * with the TypeScript compiler API: every name an entry exports, followed through re-exports to
 * its declaration, printed without comments, in name order. Types the declarations name that the
 * entry does not export are listed after them, with the entry that does export each, so a type
 * that leaks into the API unnamed shows up in review. `test/api.test.ts` compares the result with
 * the committed reports in packages/core/api/; `npm run api:update` writes them.
 *
 * Why not @microsoft/api-extractor: it bundles a TypeScript of its own (5.x) and warns on newer
 * compilers, and needs a config per entry point; the compiler the repository builds with (~6.0)
 * reads the same declarations, with no new dependency.
 *
 *   node test/dist/api-report.js --update
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { repoRoot } from './cli-helpers.js';

/** One entry point: its `exports` key and the report's file name. */
export interface ApiEntry {
  readonly subpath: '.' | './wire' | './server';
  readonly report: string;
}

export const apiEntries: readonly ApiEntry[] = [
  { subpath: '.', report: 'core.api.md' },
  { subpath: './wire', report: 'core-wire.api.md' },
  { subpath: './server', report: 'core-server.api.md' },
];

const coreDir = join(repoRoot, 'packages', 'core');
/** Where the committed reports live. */
export const apiDir = join(coreDir, 'api');

/** The `.d.ts` of an entry point, from core's package.json `exports` ("types" condition). */
function declarationFile(subpath: string): string {
  const manifest = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> };
  const entry = manifest.exports[subpath];
  if (!entry?.types) throw new Error(`packages/core/package.json exports no types for '${subpath}'`);
  return join(coreDir, entry.types);
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** Every entry's report, keyed by report file name; one program reads all three. */
export function apiReports(): Map<string, string> {
  const files = apiEntries.map((entry) => declarationFile(entry.subpath));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exported = apiEntries.map((entry, i) => ({ entry, names: exportsOf(program, checker, files[i]!) }));
  const reports = new Map<string, string>();
  for (const { entry, names } of exported) {
    const others = exported.filter((other) => other.entry !== entry);
    reports.set(entry.report, report(entry, names, checker, others));
  }
  return reports;
}

/** The exports of one `.d.ts`, by exported name, each resolved to the symbol it names. */
function exportsOf(program: ts.Program, checker: ts.TypeChecker, file: string): Map<string, ts.Symbol> {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${relative(repoRoot, file)} is missing: run npm run build first`);
  const module = checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${relative(repoRoot, file)} is not a module`);
  const names = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(module)) names.set(symbol.name, resolve(checker, symbol));
  return names;
}

function resolve(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function report(entry: ApiEntry, names: Map<string, ts.Symbol>, checker: ts.TypeChecker, others: readonly { entry: ApiEntry; names: Map<string, ts.Symbol> }[]): string {
  const exportedSymbols = new Set(names.values());
  const blocks: string[] = [];
  /** Declarations of ours the exports name without this entry exporting them, found as they are printed. */
  const unexported: ts.Symbol[] = [];
  const block = (label: string, symbol: ts.Symbol): string => {
    const declarations = symbol.declarations ?? [];
    for (const declaration of declarations) {
      for (const referenced of referencedSymbols(declaration, checker)) {
        if (!exportedSymbols.has(referenced) && ours(referenced) && !unexported.includes(referenced)) unexported.push(referenced);
      }
    }
    const from = declarations[0] ? home(declarations[0].getSourceFile().fileName) : '?';
    return `// ${label}: ${from}\n${declarations.map((declaration) => print(declaration)).join('\n')}`;
  };
  for (const [name, symbol] of [...names].sort(([a], [b]) => a.localeCompare(b, 'en'))) {
    blocks.push(block(symbol.name !== name && symbol.name !== 'default' ? `${name} (declared as ${symbol.name})` : name, symbol));
  }
  const title = `@foghorn/core${entry.subpath.slice(1)}`;
  let out = `# ${title}: public API\n\n`;
  out += `Generated from the built declarations by \`npm run api:update\` (test/api-report.ts); \`npm test\`\n`;
  out += `fails when they differ from this file. Review every change: this is what plugins are built against.\n\n`;
  out += '```ts\n' + blocks.join('\n\n') + '\n```\n';
  if (unexported.length > 0) {
    // The list grows while it is printed: what an unexported declaration names is listed too.
    const appendix: string[] = [];
    for (let i = 0; i < unexported.length; i++) {
      const symbol = unexported[i]!;
      const elsewhere = others.find((other) => [...other.names.values()].includes(symbol));
      appendix.push(elsewhere ? `// ${symbol.name}: exported by @foghorn/core${elsewhere.entry.subpath.slice(1)}` : block(`${symbol.name} (not exported)`, symbol));
    }
    out += '\nNamed by the declarations above without being exported here:\n\n```ts\n' + appendix.sort((a, b) => a.localeCompare(b, 'en')).join('\n\n') + '\n```\n';
  }
  return out;
}

/** A declaration as it reads in the `.d.ts`, without comments; a variable with its `const`. */
function print(declaration: ts.Declaration): string {
  const source = declaration.getSourceFile();
  if (ts.isVariableDeclaration(declaration)) {
    const list = declaration.parent;
    const keyword = list.flags & ts.NodeFlags.Const ? 'const' : list.flags & ts.NodeFlags.Let ? 'let' : 'var';
    return `declare ${keyword} ${printer.printNode(ts.EmitHint.Unspecified, declaration, source)};`;
  }
  return printer.printNode(ts.EmitHint.Unspecified, declaration, source);
}

/** The symbols a declaration's types name, through aliases. */
function referencedSymbols(declaration: ts.Node, checker: ts.TypeChecker): Set<ts.Symbol> {
  const found = new Set<ts.Symbol>();
  const visit = (node: ts.Node): void => {
    let name: ts.Node | undefined;
    if (ts.isTypeReferenceNode(node)) name = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
    else if (ts.isTypeQueryNode(node)) name = node.exprName;
    if (name) {
      const symbol = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.left : name);
      if (symbol) found.add(resolve(checker, symbol));
    }
    ts.forEachChild(node, visit);
  };
  visit(declaration);
  return found;
}

/** Whether a symbol is a declaration of this repository's packages (not Node, dns-packet, prom-client, nor a type parameter). */
function ours(symbol: ts.Symbol): boolean {
  if (symbol.flags & ts.SymbolFlags.TypeParameter) return false;
  const file = symbol.declarations?.[0]?.getSourceFile().fileName ?? '';
  return file.startsWith(join(repoRoot, 'packages')) && !file.includes('node_modules');
}

/** A declaration file as the source module it was built from: `core/src/plugin.ts`. */
function home(file: string): string {
  return relative(join(repoRoot, 'packages'), file).replace('/dist/src/', '/src/').replace(/\.d\.ts$/, '.ts');
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--update')) {
  for (const [file, text] of apiReports()) writeFileSync(join(apiDir, file), text);
  console.log(`wrote ${apiEntries.map((entry) => relative(repoRoot, join(apiDir, entry.report))).join(', ')}`);
}
