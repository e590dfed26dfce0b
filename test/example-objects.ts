/** The YAML manifests under examples/ (what `npm start` serves from files) as API objects. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ApiObject } from '@foghorn/testkit/kube';
import { repoRoot } from './cli-helpers.js';

/** Every object of every `*.yaml` file in `examples/NAME`, for the test API server to serve. */
export function exampleObjects(name: 'cluster' | 'clusterset'): ApiObject[] {
  const dir = join(repoRoot, 'examples', name);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => doc.toJS() as ApiObject));
}
