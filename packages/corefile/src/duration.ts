/**
 * Go's `time.ParseDuration` and `Duration.String()`, because Corefiles write durations the Go way
 * (`1h30m`, `1.5s`, `0`) and CoreDNS logs them the Go way (`5m0s`). Values are milliseconds
 * (fractions allowed: `1us` is 0.001).
 */

const unitNs: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const maxInt64 = (1n << 63n) - 1n;

function quote(text: string): string {
  return JSON.stringify(text);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

/**
 * Parses a Go duration (`300ms`, `-1.5h`, `2h45m`; units ns, us, µs, ms, s, m, h) into
 * milliseconds. A bare `0` is allowed; any other number needs a unit.
 *
 * @throws {Error} with Go's message, e.g. `time: missing unit in duration "5"`,
 *   `time: unknown unit "d" in duration "1d"`, `time: invalid duration "x"`.
 *
 * @example
 * parseDuration('1h30m') // 5_400_000
 * parseDuration('1.5s')  // 1_500
 */
export function parseDuration(text: string): number {
  const invalid = (): Error => new Error(`time: invalid duration ${quote(text)}`);
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    // Integer part.
    let i = 0;
    while (isDigit(s[i])) i++;
    const intDigits = s.slice(0, i);
    s = s.slice(i);
    // Fraction part.
    let fracDigits = '';
    let hasFraction = false;
    if (s.startsWith('.')) {
      s = s.slice(1);
      let j = 0;
      while (isDigit(s[j])) j++;
      fracDigits = s.slice(0, j);
      hasFraction = j > 0;
      s = s.slice(j);
    }
    if (intDigits === '' && !hasFraction) throw invalid();
    // Unit: everything up to the next digit or dot.
    let k = 0;
    while (k < s.length && !(s[k] === '.' || isDigit(s[k]))) k++;
    if (k === 0) throw new Error(`time: missing unit in duration ${quote(text)}`);
    const unitName = s.slice(0, k);
    s = s.slice(k);
    const unit = unitNs[unitName];
    if (unit === undefined) throw new Error(`time: unknown unit ${quote(unitName)} in duration ${quote(text)}`);
    const whole = intDigits === '' ? 0n : BigInt(intDigits);
    if (whole > maxInt64 / unit) throw invalid();
    let value = whole * unit;
    if (fracDigits !== '') {
      // Go truncates the fraction to whole nanoseconds.
      const scale = 10n ** BigInt(fracDigits.length);
      value += (BigInt(fracDigits) * unit) / scale;
    }
    total += value;
    if (total > maxInt64 + (negative ? 1n : 0n)) throw invalid();
  }
  const ms = Number(total) / 1e6;
  return negative ? -ms : ms;
}

/** `prec` decimal digits of `v` as a fraction with trailing zeros removed, then the integer part. */
function formatFraction(v: bigint, prec: number): string {
  const scale = 10n ** BigInt(prec);
  const whole = v / scale;
  const fraction = (v % scale).toString().padStart(prec, '0').replace(/0+$/, '');
  return fraction === '' ? `${whole}` : `${whole}.${fraction}`;
}

/**
 * Formats milliseconds as Go's `Duration.String()`: `0s`, `100ms`, `1.5s`, `5m0s`, `1h0m0s`
 * (the value is rounded to whole nanoseconds first).
 *
 * @example
 * formatDuration(300_000) // '5m0s'
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`invalid duration: ${ms}`);
  let ns = BigInt(Math.round(ms * 1e6));
  const sign = ns < 0n ? '-' : '';
  if (ns < 0n) ns = -ns;
  if (ns === 0n) return '0s';
  if (ns < 1_000n) return `${sign}${ns}ns`;
  if (ns < 1_000_000n) return `${sign}${formatFraction(ns, 3)}µs`;
  if (ns < 1_000_000_000n) return `${sign}${formatFraction(ns, 6)}ms`;
  const seconds = formatFraction(ns % 60_000_000_000n, 9);
  const minutes = ns / 60_000_000_000n;
  if (minutes === 0n) return `${sign}${seconds}s`;
  const hours = minutes / 60n;
  if (hours === 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${hours}h${minutes % 60n}m${seconds}s`;
}
