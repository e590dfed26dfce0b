import { availableParallelism } from 'node:os';

/**
 * Command-line flags with Go's `flag` syntax, as the coredns binary: `-f v`, `-f=v`, `--f`, and
 * bare booleans. Positional arguments are an error.
 */
export interface CliFlags {
  conf: string;
  dnsPort: number | undefined;
  pidfile: string;
  plugins: boolean;
  quiet: boolean;
  version: boolean;
  validate: boolean;
  pluginsCfg: string;
  /** `-query NAME [TYPE] [CLASS] [+edns=N]`: the name, '' without the flag. */
  query: string;
  /** The words after `-query NAME`: TYPE, CLASS and dig's `+edns=N` / `+noedns`, in dig's syntax. */
  queryArgs: string[];
  /** `-workers N|auto`: processes serving the ports; 1 (the default) is a single process. */
  workers: number;
}

type FlagKind = 'string' | 'port' | 'bool' | 'workers';
const flagKinds: Record<string, { kind: FlagKind; field: keyof CliFlags }> = {
  conf: { kind: 'string', field: 'conf' },
  'dns.port': { kind: 'port', field: 'dnsPort' },
  p: { kind: 'port', field: 'dnsPort' },
  pidfile: { kind: 'string', field: 'pidfile' },
  plugins: { kind: 'bool', field: 'plugins' },
  quiet: { kind: 'bool', field: 'quiet' },
  version: { kind: 'bool', field: 'version' },
  validate: { kind: 'bool', field: 'validate' },
  'plugins-cfg': { kind: 'string', field: 'pluginsCfg' },
  query: { kind: 'string', field: 'query' },
  workers: { kind: 'workers', field: 'workers' },
};

/** Usage text, printed for `-h` and flag errors. */
export const usage = `Usage of foghorn:
  -conf string
        Corefile to load (default "Corefile"); "stdin" reads it from standard input
  -dns.port string
        Default port (default "53"); alias -p
  -pidfile string
        File to write the process ID to
  -plugins
        List every directive with its package and version, in chain order
  -plugins-cfg string
        Directive list to use instead of the built-in one: name:package per line, in chain order
  -query string
        NAME [TYPE] [CLASS] [+edns=N|+noedns]: answer one query through the Corefile's chain,
        without listening, and print the reply as dig does with the path it took (zone block,
        plugins, who wrote the reply)
  -quiet
        Quiet mode (no initialization output)
  -validate
        Parse the Corefile and set up every plugin without serving; print OK or the error
  -version
        Show version
  -workers string
        Processes serving the same ports, N or "auto" (one per CPU); a primary process
        supervises them (default "1": a single process)`;

export class FlagError extends Error {}

export function parseFlags(argv: readonly string[]): CliFlags {
  const flags: CliFlags = { conf: '', dnsPort: undefined, pidfile: '', plugins: false, quiet: false, version: false, validate: false, pluginsCfg: '', query: '', queryArgs: [], workers: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-' ) throw new FlagError(`extra command line arguments: [${argv.slice(i).join(' ')}]`);
    if (arg === '--') {
      if (i + 1 < argv.length) throw new FlagError(`extra command line arguments: [${argv.slice(i + 1).join(' ')}]`);
      break;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    if (name === 'h' || name === 'help') throw new FlagError(usage);
    const spec = flagKinds[name];
    if (!spec) throw new FlagError(`flag provided but not defined: -${name}\n${usage}`);
    if (spec.kind === 'bool') {
      const value = eq >= 0 ? body.slice(eq + 1) : 'true';
      if (!['true', 'false', '1', '0', 't', 'f', 'TRUE', 'FALSE', 'True', 'False'].includes(value)) {
        throw new FlagError(`invalid boolean value "${value}" for -${name}`);
      }
      (flags[spec.field] as boolean) = ['true', '1', 't', 'TRUE', 'True'].includes(value);
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = body.slice(eq + 1);
    else value = argv[++i];
    if (value === undefined) throw new FlagError(`flag needs an argument: -${name}\n${usage}`);
    if (spec.kind === 'port') {
      if (!/^\d+$/.test(value) || Number(value) > 65535) throw new FlagError(`invalid port "${value}" for -${name}: must be 0 to 65535`);
      flags.dnsPort = Number(value);
    } else if (spec.kind === 'workers') {
      flags.workers = parseWorkers(value, name);
    } else {
      (flags[spec.field] as string) = value;
    }
    // `-query NAME TYPE CLASS`: dig's words after the name, the only positional arguments the command takes.
    if (name === 'query') while (i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) flags.queryArgs.push(argv[++i]!);
  }
  return flags;
}

/** The most workers accepted: far more than any machine has cores, far fewer than would exhaust it. */
export const MAX_WORKERS = 256;

/** `-workers`: a count from 1 to {@link MAX_WORKERS}, or `auto` for `os.availableParallelism()`. */
function parseWorkers(value: string, name: string): number {
  if (value === 'auto') return availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_WORKERS) {
    throw new FlagError(`invalid value "${value}" for flag -${name}: must be auto or a number from 1 to ${MAX_WORKERS}`);
  }
  return Number(value);
}
