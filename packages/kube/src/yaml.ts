/**
 * The YAML parser, loaded on first use: a cluster DNS pod reads its service account and no YAML,
 * and importing `yaml` (some 80 modules) costs every process that imports @foghorn/kube.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let loaded: Yaml | undefined;

export function yaml(): Yaml {
  // `yaml` ships a CommonJS build beside its ESM one: required here, it loads synchronously.
  loaded ??= createRequire(import.meta.url)('yaml') as Yaml;
  return loaded;
}
