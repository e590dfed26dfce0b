/**
 * The part of Go's `filepath.Glob` that Corefile imports can reach: `*`, `?` and `\` escapes,
 * per path component, matches sorted byte-wise per directory. CoreDNS refuses patterns with both
 * `[` and `]` before globbing, so a `[` that gets here is always malformed.
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

/** Go's `filepath.ErrBadPattern` text. */
export const badPatternMessage = 'syntax error in pattern';

export class BadPatternError extends Error {
  constructor() {
    super(badPatternMessage);
  }
}

function hasMeta(path: string): boolean {
  return /[*?[\\]/.test(path);
}

type Piece = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; value: string };

/** Compiles one path component; throws {@link BadPatternError} like Go's `filepath.Match`. */
function compile(pattern: string): Piece[] {
  const pieces: Piece[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (ch === '*') pieces.push({ kind: 'star' });
    else if (ch === '?') pieces.push({ kind: 'any' });
    else if (ch === '[') throw new BadPatternError();
    else if (ch === '\\') {
      const next = chars[++i];
      if (next === undefined) throw new BadPatternError();
      pieces.push({ kind: 'char', value: next });
    } else pieces.push({ kind: 'char', value: ch });
  }
  return pieces;
}

function matches(pieces: readonly Piece[], name: string): boolean {
  const chars = Array.from(name);
  // Classic two-pointer wildcard match with backtracking to the last star.
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < chars.length) {
    const piece = pieces[p];
    const ch = chars[n] as string;
    if (piece !== undefined && piece.kind === 'star') {
      starP = p++;
      starN = n;
    } else if (piece !== undefined && ch !== sep && (piece.kind === 'any' || piece.value === ch)) {
      p++;
      n++;
    } else if (starP !== -1 && chars[starN] !== sep) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  for (; p < pieces.length; p++) if (pieces[p]?.kind !== 'star') return false;
  return true;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function globDir(dir: string, pattern: string, out: string[]): void {
  const pieces = compile(pattern);
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) return;
    names = readdirSync(dir);
  } catch {
    return; // Go's Glob ignores I/O errors
  }
  names.sort(byteOrder);
  for (const name of names) if (matches(pieces, name)) out.push(join(dir, name));
}

/**
 * Go's `filepath.Glob`: a pattern without meta characters matches itself if it exists (lstat);
 * otherwise each matching path, sorted per directory. Throws {@link BadPatternError}.
 */
export function glob(pattern: string): string[] {
  if (!hasMeta(pattern)) {
    try {
      lstatSync(pattern);
      return [pattern];
    } catch {
      return [];
    }
  }
  // Check the whole pattern is well formed first, as Go does.
  for (const part of pattern.split(sep)) compile(part);
  const cut = pattern.lastIndexOf(sep);
  const file = pattern.slice(cut + 1);
  let dir = pattern.slice(0, cut + 1);
  dir = dir === '' ? '.' : dir === sep ? dir : dir.slice(0, -1);
  const out: string[] = [];
  if (!hasMeta(dir)) {
    globDir(dir, file, out);
    return out;
  }
  if (dir === pattern) throw new BadPatternError();
  for (const d of glob(dir)) globDir(d, file, out);
  return out;
}
