/**
 * Go (RE2) regular expressions as JavaScript RegExps, for the plugins whose Corefile options are
 * Go patterns (rewrite, template). RE2 spellings JavaScript lacks are translated: `(?P<name>`,
 * leading inline flags `(?i)` / `(?s)` / `(?m)`, `\A` and `\z`. What RE2 refuses (look-around,
 * back-references) is refused here too, so a Corefile that CoreDNS rejects is rejected.
 */

/** Compiles `pattern` as Go's `regexp.Compile` would, or throws an Error saying why not. */
export function goRegExp(pattern: string): RegExp {
  if (/\(\?<?[=!]/.test(pattern)) throw new Error(`error parsing regexp: invalid or unsupported Perl syntax: \`${/\(\?<?[=!]/.exec(pattern)![0]}\``);
  const backref = /\\[1-9]/.exec(pattern);
  if (backref) throw new Error(`error parsing regexp: invalid escape sequence: \`${backref[0]}\``);
  let flags = '';
  let source = pattern;
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    flags = inline[1]!;
    source = source.slice(inline[0].length);
  }
  source = source.replaceAll('(?P<', '(?<').replaceAll('\\A', '^').replaceAll('\\z', '$(?![\\s\\S])');
  try {
    return new RegExp(source, flags);
  } catch (error) {
    // V8 says `Invalid regular expression: /SOURCE/FLAGS: REASON`; Go says `REASON: \`PATTERN\``.
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : String(error);
    throw new Error(`error parsing regexp: ${reason}: \`${pattern}\``);
  }
}

/** How many capture groups `pattern` has (Go's `NumSubexp`). */
export function regExpGroups(pattern: RegExp): number {
  return new RegExp(`${pattern.source}|`, pattern.flags).exec('')!.length - 1;
}
