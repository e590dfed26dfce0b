/**
 * Third-party plugins: npm packages named `foghorn-plugin-<name>` (or `@scope/foghorn-plugin-<name>`)
 * installed next to the Corefile or in the working directory — not next to Foghorn itself, so
 * an operator adds a plugin with `npm install` where their configuration lives.
 *
 * Each is placed in the chain by the operator's directive list (`-plugins-cfg`) or, without one,
 * by its `order` hint relative to a *standard* directive (caddy's rule: plugin load order is not
 * guaranteed, so a hint may only name a directive that is always there).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { API_VERSION, errorMessage, PluginLoadError } from '@foghorn/core';
import type { PluginDefinition } from '@foghorn/core';
import type { DirectiveEntry } from '@foghorn/core/server';
import { useHostPackages } from './host-packages.js';

/** A `foghorn-plugin-*` package found on disk. */
export interface ExternalPackage {
  /** Directive name: the part after `foghorn-plugin-`. */
  readonly name: string;
  readonly packageName: string;
  readonly dir: string;
  readonly version: string;
}

export { PluginLoadError };

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  peerDependencies?: Record<string, string>;
}

const corePackage = JSON.parse(readFileSync(new URL(import.meta.resolve('@foghorn/core/package.json')), 'utf8')) as PackageJson;

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** `node_modules` folders Node would search from `dir`: its own and every ancestor's. */
function nodeModulesFrom(dir: string): string[] {
  const found: string[] = [];
  for (let current = resolve(dir); ; current = dirname(current)) {
    const candidate = join(current, 'node_modules');
    if (existsSync(candidate)) found.push(candidate);
    if (dirname(current) === current) return found;
  }
}

/**
 * Finds `foghorn-plugin-*` packages reachable from the given directories (the Corefile's and
 * the working directory), nearest first; the first package found for a directive name wins.
 */
export function discoverExternalPlugins(searchDirs: readonly string[]): Map<string, ExternalPackage> {
  const plugins = new Map<string, ExternalPackage>();
  const consider = (dir: string, packageName: string, name: string): void => {
    if (plugins.has(name) || !existsSync(join(dir, 'package.json'))) return;
    const pkg = readPackageJson(dir);
    plugins.set(name, { name, packageName, dir, version: pkg.version ?? '0.0.0' });
  };
  for (const searchDir of searchDirs) {
    for (const modules of nodeModulesFrom(searchDir)) {
      for (const entry of readdirSync(modules).sort()) {
        if (entry.startsWith('foghorn-plugin-')) consider(join(modules, entry), entry, entry.slice('foghorn-plugin-'.length));
        if (entry.startsWith('@') && statSync(join(modules, entry)).isDirectory()) {
          for (const scoped of readdirSync(join(modules, entry)).sort()) {
            if (scoped.startsWith('foghorn-plugin-')) consider(join(modules, entry, scoped), `${entry}/${scoped}`, scoped.slice('foghorn-plugin-'.length));
          }
        }
      }
    }
  }
  return plugins;
}

/** The ESM entry of a package: `exports["."]` (import/default condition) or `main`. */
function entryPoint(dir: string, pkg: PackageJson): string {
  let target: unknown = pkg.exports;
  if (target && typeof target === 'object' && '.' in target) target = (target as Record<string, unknown>)['.'];
  while (target && typeof target === 'object') {
    const conditions = target as Record<string, unknown>;
    target = conditions['import'] ?? conditions['default'] ?? conditions['node'];
  }
  return join(dir, typeof target === 'string' ? target : (pkg.main ?? 'index.js'));
}

/**
 * Imports a plugin package and checks it against this core: shape, name, API version, peer range.
 * Its imports of `@foghorn/core` and `@foghorn/corefile` get this Foghorn's copies (host-packages.ts).
 */
export async function loadExternalPlugin(plugin: ExternalPackage): Promise<PluginDefinition> {
  const where = `plugin package ${plugin.packageName} (${plugin.dir})`;
  const pkg = readPackageJson(plugin.dir);
  const range = pkg.peerDependencies?.['@foghorn/core'];
  if (range === undefined) throw new PluginLoadError(`${where} must declare @foghorn/core in peerDependencies`);
  if (!semver.satisfies(corePackage.version ?? '0.0.0', range, { includePrerelease: true })) {
    throw new PluginLoadError(`${where} needs @foghorn/core ${range}, but this Foghorn has ${corePackage.version}`);
  }
  let module: { default?: unknown };
  useHostPackages();
  try {
    module = (await import(pathToFileURL(entryPoint(plugin.dir, pkg)).href)) as { default?: unknown };
  } catch (error) {
    throw new PluginLoadError(`${where} failed to load: ${errorMessage(error)}`, { cause: error });
  }
  const definition = module.default as Partial<PluginDefinition> | undefined;
  if (!definition || typeof definition !== 'object' || typeof definition.setup !== 'function' || typeof definition.name !== 'string') {
    throw new PluginLoadError(`${where} has no plugin as its default export (export default definePlugin({ name, setup }))`);
  }
  if (definition.name !== plugin.name) {
    throw new PluginLoadError(`${where} defines directive '${definition.name}', but its package name says '${plugin.name}'`);
  }
  if (definition.apiVersion !== undefined && definition.apiVersion !== API_VERSION) {
    throw new PluginLoadError(`${where} was written for plugin API version ${definition.apiVersion}; this Foghorn implements version ${API_VERSION}`);
  }
  return definition as PluginDefinition;
}

function externalEntry(plugin: ExternalPackage, definition: PluginDefinition): DirectiveEntry {
  return { name: plugin.name, packageName: plugin.packageName, version: plugin.version, load: () => definition };
}

/**
 * The standard list with external plugins placed by their `order` hints. Several plugins
 * hinting at the same place keep their discovery (alphabetical) order. A plugin that cannot be
 * loaded or placed does not stop the others: its entry goes last and fails when a Corefile uses
 * it, so the error can name the place in the Corefile.
 */
export async function placeByHints(standard: readonly DirectiveEntry[], externals: Iterable<ExternalPackage>): Promise<DirectiveEntry[]> {
  const list = [...standard];
  const broken: DirectiveEntry[] = [];
  const standardNames = new Set(standard.map((entry) => entry.name));
  for (const plugin of externals) {
    if (standardNames.has(plugin.name)) continue; // a standard directive cannot be replaced by name
    let definition: PluginDefinition;
    let index: number;
    try {
      definition = await loadExternalPlugin(plugin);
      index = hintedIndex(list, standardNames, plugin, definition);
    } catch (error) {
      broken.push({ name: plugin.name, packageName: plugin.packageName, version: plugin.version, load: () => Promise.reject(error) });
      continue;
    }
    list.splice(index, 0, externalEntry(plugin, definition));
  }
  return [...list, ...broken];
}

function hintedIndex(list: readonly DirectiveEntry[], standardNames: ReadonlySet<string>, plugin: ExternalPackage, definition: PluginDefinition): number {
  const order = definition.order;
  if (!order) {
    throw new PluginLoadError(`plugin package ${plugin.packageName} has no order hint ({ after | before: '<standard directive>' }); place it with -plugins-cfg`);
  }
  const anchor = 'after' in order ? order.after : order.before;
  if (!standardNames.has(anchor)) {
    throw new PluginLoadError(`plugin package ${plugin.packageName} asks to be placed relative to '${anchor}', which is not a standard directive`);
  }
  let index = list.findIndex((entry) => entry.name === anchor);
  if ('before' in order) return index;
  // After the anchor, its aliases, and external plugins placed after it earlier.
  const anchorPackage = list[index]!.packageName;
  index++;
  while (index < list.length && (!standardNames.has(list[index]!.name) || list[index]!.packageName === anchorPackage)) index++;
  return index;
}

/**
 * The operator's directive list (`-plugins-cfg FILE`): `name:package` per line, in chain order,
 * `#` comments and blank lines ignored — CoreDNS's plugin.cfg format. Standard packages come from
 * `standard`; any other package must be an installed `foghorn-plugin-*`.
 */
export async function readPluginsCfg(
  file: string,
  standard: readonly DirectiveEntry[],
  externals: ReadonlyMap<string, ExternalPackage>,
): Promise<DirectiveEntry[]> {
  const list: DirectiveEntry[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/#.*/, '').trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0 || colon === line.length - 1) throw new PluginLoadError(`${file}:${i + 1}: expected name:package, got '${line}'`);
    const name = line.slice(0, colon).trim();
    const packageName = line.slice(colon + 1).trim();
    if (list.some((entry) => entry.name === name)) throw new PluginLoadError(`${file}:${i + 1}: directive '${name}' is listed twice`);
    const builtIn = standard.find((entry) => entry.packageName === packageName);
    if (builtIn) {
      list.push({ ...builtIn, name });
      continue;
    }
    const external = [...externals.values()].find((plugin) => plugin.packageName === packageName);
    if (!external) throw new PluginLoadError(`${file}:${i + 1}: package ${packageName} for directive '${name}' is neither built in nor installed next to the Corefile or in the working directory`);
    list.push(externalEntry(external, await loadExternalPlugin(external)));
  }
  return list;
}
