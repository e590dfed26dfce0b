/**
 * Finding the Corefile as CoreDNS does (docs/compatibility.md, "The command"): `-conf FILE` (or `stdin`), else `./Corefile`
 * in the working directory, else none and the built-in default is served.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CorefileSource } from '@foghorn/core';
import { errorMessage } from '@foghorn/core';

export class CorefileNotFound extends Error {}

/** Reads the Corefile named by `-conf`, or `./Corefile`; undefined means "use the default". */
export function readCorefile(conf: string, stdin: () => string): CorefileSource | undefined {
  if (conf === 'stdin') return { path: 'stdin', contents: stdin() };
  if (conf !== '') {
    try {
      return { path: conf, contents: readFileSync(conf, 'utf8') };
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : errorMessage(error);
      throw new CorefileNotFound(`loading Corefile via flag: open ${conf}: ${reason}`);
    }
  }
  if (existsSync('Corefile')) return { path: 'Corefile', contents: readFileSync('Corefile', 'utf8') };
  return undefined;
}
