/**
 * The origin template of `directory DIR REGEXP ORIGIN_TEMPLATE`: CoreDNS turns each `{` into
 * `${` (`{1}` → `${1}`) and hands the result to Go's `Regexp.ExpandString`, whose rules are
 * kept here: `$name` or `${name}` stands for a group by number or name, a group that does not
 * exist or did not match is empty, `$$` is `$`, and a `$` that starts no valid reference is kept.
 */

/** CoreDNS's `rewriteToExpand`: every `{` gets a `$` in front. */
export function rewriteToExpand(template: string): string {
  return template.replaceAll('{', '${');
}

const NAME = /^[A-Za-z0-9_]+/;

/** Go's `Regexp.ExpandString(nil, template, src, match)` for a JavaScript match. */
export function expand(template: string, match: RegExpExecArray): string {
  let out = '';
  let rest = template;
  for (;;) {
    const dollar = rest.indexOf('$');
    if (dollar < 0) return out + rest;
    out += rest.slice(0, dollar);
    rest = rest.slice(dollar);
    if (rest.startsWith('$$')) {
      out += '$';
      rest = rest.slice(2);
      continue;
    }
    let name: string | undefined;
    let length = 0;
    if (rest[1] === '{') {
      const close = rest.indexOf('}', 2);
      const inner = close < 0 ? '' : rest.slice(2, close);
      if (close > 2 && NAME.exec(inner)?.[0] === inner) {
        name = inner;
        length = close + 1;
      }
    } else {
      const found = NAME.exec(rest.slice(1))?.[0];
      if (found !== undefined) {
        name = found;
        length = found.length + 1;
      }
    }
    if (name === undefined) {
      // Malformed: the `$` stays as text.
      out += '$';
      rest = rest.slice(1);
      continue;
    }
    out += group(match, name) ?? '';
    rest = rest.slice(length);
  }
}

function group(match: RegExpExecArray, name: string): string | undefined {
  // A number without a leading zero is a group index; anything else a group name.
  if (/^(0|[1-9]\d*)$/.test(name)) {
    const index = Number(name);
    return index < match.length ? match[index] : undefined;
  }
  return match.groups?.[name];
}
