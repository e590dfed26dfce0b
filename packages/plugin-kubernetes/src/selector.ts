/**
 * Kubernetes label selectors, as the `labels` and `namespace_labels` options take them
 * (k8s.io/apimachinery `metav1.ParseToLabelSelector`): equality (`a=b`, `a==b`, `a!=b`),
 * sets (`a in (x,y)`, `a notin (x)`), existence (`a`, `!a`). The normalised text (requirements
 * sorted by key, set values sorted) is what goes to the API server; `matches` applies the same
 * selector to objects read from manifests.
 */

type Operator = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin';

interface Requirement {
  readonly key: string;
  readonly op: Operator;
  readonly values: readonly string[];
}

/** A parsed selector. */
export class LabelSelector {
  private constructor(private readonly requirements: readonly Requirement[]) {}

  /** Parses `text`; throws an Error whose message says what is wrong. */
  static parse(text: string): LabelSelector {
    return new LabelSelector(parseRequirements(text));
  }

  /** apimachinery's `Selector.String()`: sorted by key, set values sorted. */
  toString(): string {
    return [...this.requirements]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ key, op, values }) => {
        switch (op) {
          case 'exists':
            return key;
          case '!exists':
            return `!${key}`;
          case '=':
          case '!=':
            return `${key}${op}${values[0]}`;
          default:
            return `${key} ${op} (${[...values].sort().join(',')})`;
        }
      })
      .join(',');
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    for (const { key, op, values } of this.requirements) {
      const value = labels?.[key];
      switch (op) {
        case 'exists':
          if (value === undefined) return false;
          break;
        case '!exists':
          if (value !== undefined) return false;
          break;
        case '=':
        case 'in':
          if (value === undefined || !values.includes(value)) return false;
          break;
        case '!=':
        case 'notin':
          if (value !== undefined && values.includes(value)) return false;
          break;
      }
    }
    return true;
  }
}

const namePart = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key: `[prefix/]name`, name at most 63 characters, prefix a DNS subdomain. */
function checkKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !dnsSubdomain.test(prefix))) {
    throw new Error(`key: Invalid value: "${key}": prefix part must be a DNS subdomain`);
  }
  if (name.length === 0 || name.length > 63 || !namePart.test(name)) {
    throw new Error(`key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
}

/** A label value: empty, or at most 63 characters of the name-part alphabet. */
function checkValue(value: string): void {
  if (value !== '' && (value.length > 63 || !namePart.test(value))) {
    throw new Error(`values[0]: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
}

/** Splits into identifiers and the operator characters `!`, `=`, `(`, `)`, `,`, `<`, `>`. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '=' || c === '!') {
      const two = text.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push(two);
        i += 2;
      } else {
        tokens.push(c);
        i++;
      }
    } else if ('(),<>'.includes(c)) {
      tokens.push(c);
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s=!(),<>]/.test(text[j]!)) j++;
      tokens.push(text.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

const operatorTokens = new Set(['=', '==', '!=', '!', '(', ')', ',', '<', '>']);

function parseRequirements(text: string): Requirement[] {
  const tokens = tokenize(text);
  const out: Requirement[] = [];
  let i = 0;
  const identifier = (what: string): string => {
    const token = tokens[i++];
    if (token === undefined || operatorTokens.has(token)) throw new Error(`found '${token ?? ''}', expected: ${what}`);
    return token;
  };
  while (i < tokens.length) {
    if (tokens[i] === '!') {
      i++;
      const key = identifier('identifier after \'!\'');
      checkKey(key);
      out.push({ key, op: '!exists', values: [] });
    } else {
      const key = identifier('identifier');
      checkKey(key);
      const op = tokens[i];
      if (op === undefined || op === ',') {
        out.push({ key, op: 'exists', values: [] });
      } else if (op === '=' || op === '==' || op === '!=') {
        i++;
        const next = tokens[i];
        const value = next === undefined || next === ',' ? '' : identifier('identifier');
        checkValue(value);
        out.push({ key, op: op === '!=' ? '!=' : '=', values: [value] });
      } else if (op === 'in' || op === 'notin') {
        i++;
        if (tokens[i++] !== '(') throw new Error(`found '${tokens[i - 1] ?? ''}', expected: '('`);
        const values: string[] = [];
        while (tokens[i] !== ')') {
          if (tokens[i] === undefined) throw new Error("found '', expected: ')'");
          if (values.length > 0 || tokens[i] === ',') {
            if (tokens[i] !== ',') throw new Error(`found '${tokens[i]}', expected: ',' or ')'`);
            i++;
          }
          const value = tokens[i] === ',' || tokens[i] === ')' ? '' : identifier('identifier');
          checkValue(value);
          values.push(value);
        }
        i++;
        if (values.length === 0) throw new Error(`for 'in', 'notin' operators, values set can't be empty`);
        out.push({ key, op, values: [...new Set(values)] });
      } else if (op === '<' || op === '>') {
        throw new Error(`"${op === '<' ? 'lt' : 'gt'}" is not a valid label selector operator`);
      } else {
        throw new Error(`found '${op}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    if (i < tokens.length) {
      if (tokens[i] !== ',') throw new Error(`found '${tokens[i]}', expected: ',' or 'end of string'`);
      i++;
      if (i === tokens.length) throw new Error("found '', expected: identifier");
    }
  }
  return out;
}
