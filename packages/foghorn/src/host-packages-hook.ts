/**
 * The resolve hook installed by host-packages.ts. It runs on Node's loader thread and sees every
 * import: a bare `@foghorn/core` or `@foghorn/core/SUBPATH` is resolved as if it were imported from
 * inside the host's own copy of that package, so the package's `exports` map still decides what
 * the subpath means. Everything else goes on unchanged.
 */
interface ResolveContext {
  parentURL?: string;
  conditions: string[];
  importAttributes?: Record<string, string>;
}
interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => ResolveResult | Promise<ResolveResult>;

/** Package name → URL of the host's `package.json` of it. */
let roots: Record<string, string> = {};

export function initialize(data: { roots: Record<string, string> }): void {
  roots = data.roots;
}

export function resolve(specifier: string, context: ResolveContext, next: NextResolve): ResolveResult | Promise<ResolveResult> {
  const name = packageName(specifier);
  const root = name === undefined ? undefined : roots[name];
  if (root === undefined || context.parentURL === root) return next(specifier, context);
  // Resolving from the host package's own directory finds the host's copy first.
  return next(specifier, { ...context, parentURL: root });
}

function packageName(specifier: string): string | undefined {
  if (!specifier.startsWith('@foghorn/')) return undefined;
  const slash = specifier.indexOf('/', '@foghorn/'.length);
  return slash < 0 ? specifier : specifier.slice(0, slash);
}
