// Rewrites the directive table of README.md (between <!-- directives:begin --> and
// <!-- directives:end -->) from packages/foghorn/src/directives.ts, each row linking the plugin's
// README and quoting its "## Name" line. Run after `npm run build` when the list changes:
//   node scripts/readme-directives.mjs
// test/repository.test.ts fails while the table and the list differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { directiveOrder } from 'foghorn';

const root = new URL('../', import.meta.url);
let table = '| directive | what it does |\n|---|---|\n';
for (const entry of directiveOrder) {
  const dir = `packages/${entry.packageName.replace('@foghorn/', '')}`;
  const readme = readFileSync(new URL(`${dir}/README.md`, root), 'utf8');
  const name = (readme.split(/^## Name$/m)[1] ?? '').split(/^## /m)[0].trim().replace(/\s+/g, ' ');
  table += `| [${entry.name}](${dir}/README.md) | ${name.replace(/^\*[a-z0-9_]+\* - /, '')} |\n`;
}
const path = new URL('README.md', root);
const readme = readFileSync(path, 'utf8');
const updated = readme.replace(/(<!-- directives:begin -->\n)[\s\S]*?(<!-- directives:end -->)/, `$1${table}$2`);
if (updated === readme) console.log('README.md: directive table unchanged');
else {
  writeFileSync(path, updated);
  console.log(`README.md: directive table rewritten (${directiveOrder.length} directives)`);
}
