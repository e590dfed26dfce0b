/**
 * `foghorn`: the command-line server, flag for flag and signal for signal the coredns binary
 * (docs/compatibility.md, "The command"). Fatal startup errors go to stderr, bare, with exit status 1.
 */
import cluster from 'node:cluster';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { arch, platform } from 'node:os';
import { createLogger, errorMessage } from '@foghorn/core';
import type { CorefileSource } from '@foghorn/core';
import { Server, validateCorefile } from '@foghorn/core/server';
import type { DirectiveEntry, ListenerInfo } from '@foghorn/core/server';
import { readCorefile } from './corefile-source.js';
import { defaultCorefile } from './default-corefile.js';
import { standardDirectives } from './directives.js';
import { discoverExternalPlugins, placeByHints, readPluginsCfg } from './external.js';
import { FlagError, parseFlags } from './flags.js';
import type { CliFlags } from './flags.js';
import { Primary } from './primary.js';
import { runQuery } from './query.js';
import { version } from './version.js';
import { runWorker } from './worker.js';
import { GROUP_ENV, WORKER_ENV } from './worker-protocol.js';

function fail(message: string, code = 1): never {
  process.stderr.write(message.endsWith('\n') ? message : message + '\n');
  process.exit(code);
}


/**
 * The directive list: `-plugins-cfg` if given, else the standard list with the third-party
 * plugins installed next to the Corefile or in the working directory placed by their hints.
 */
async function distribution(flags: CliFlags): Promise<DirectiveEntry[]> {
  const standard = standardDirectives();
  const searchDirs = [process.cwd()];
  if (flags.conf !== '' && flags.conf !== 'stdin') searchDirs.unshift(dirname(resolve(flags.conf)));
  const externals = discoverExternalPlugins(searchDirs);
  if (flags.pluginsCfg !== '') return readPluginsCfg(flags.pluginsCfg, standard, externals);
  return placeByHints(standard, externals.values());
}

/**
 * Runs the CLI with `argv` (without node and script). Resolves once the server is up.
 * `directives` replaces the distribution's list (for programs that embed Foghorn).
 */
export async function main(argv: readonly string[], directives?: DirectiveEntry[]): Promise<void> {
  let flags: CliFlags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (error instanceof FlagError) fail(error.message, 2);
    throw error;
  }
  if (!directives) {
    try {
      directives = await distribution(flags);
    } catch (error) {
      fail(errorMessage(error));
    }
  }
  if (flags.version) {
    process.stdout.write(banner());
    return;
  }
  if (flags.plugins) {
    process.stdout.write(await listPlugins(directives));
    return;
  }
  const dnsPort = flags.dnsPort ?? 53;
  const list = directives;
  // With -validate and -query, stdout carries only the verdict or the reply; logs go to stderr.
  const logger = flags.validate || flags.query !== '' ? createLogger((line) => process.stderr.write(line + '\n')) : createLogger();
  const fallback = defaultCorefile(dnsPort, list);
  const load = (): CorefileSource => {
    const found = readCorefile(flags.conf, () => readFileSync(0, 'utf8'));
    if (found) return found;
    logger.warning('no Corefile found (no -conf and no ./Corefile): serving the built-in default');
    return { path: 'default Corefile', contents: fallback };
  };

  if (flags.validate) {
    try {
      await validateCorefile(load(), { directives: list, dnsPort, logger, defaultCorefile: fallback });
    } catch (error) {
      fail(errorMessage(error));
    }
    process.stdout.write('OK\n');
    return;
  }

  if (flags.query !== '') {
    // Whatever plugins print (log's query lines, written to stdout) goes to stderr: stdout
    // carries the reply alone, as dig's does.
    const toStdout = process.stdout.write.bind(process.stdout);
    process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
    let source: CorefileSource;
    try {
      source = load();
    } catch (error) {
      fail(errorMessage(error));
    }
    const outcome = await runQuery(source, {
      context: { directives: list, dnsPort, logger, defaultCorefile: fallback },
      name: flags.query,
      args: flags.queryArgs,
    });
    process.stderr.write(outcome.stderr);
    toStdout(outcome.stdout);
    // Sources, watchers and endpoints were started for the query: end them with the process.
    process.exit(outcome.code);
  }

  const worker = cluster.isWorker ? Number(process.env[WORKER_ENV] ?? 0) : 0;
  if (worker > 0) {
    await runWorker({ worker, size: flags.workers, group: process.env[GROUP_ENV] ?? '', directives: list, dnsPort, logger, defaultCorefile: fallback });
    return;
  }
  const writePidfile = (): void => {
    if (flags.pidfile) writeFileSync(flags.pidfile, `${process.pid}\n`, { mode: 0o644 });
  };
  if (flags.workers > 1) {
    // The primary serves nothing: it checks the Corefile as -validate does (the same error,
    // exit status 1) before forking workers that would each fail on it.
    let source: CorefileSource;
    try {
      source = load();
      await validateCorefile(source, { directives: list, dnsPort, logger: createLogger(() => undefined), defaultCorefile: fallback });
    } catch (error) {
      fail(errorMessage(error));
    }
    const primary = new Primary(
      {
        workers: flags.workers,
        logger,
        load,
        writePidfile,
        removePidfile: () => removePidfileAt(flags.pidfile),
        announce: (addresses) => {
          if (!flags.quiet) process.stdout.write(zoneLines(addresses) + banner());
        },
      },
      source,
    );
    await primary.start();
    return;
  }

  let server: Server;
  try {
    server = new Server({ directives: list, dnsPort, logger, loadCorefile: load, defaultCorefile: fallback });
    await server.start();
  } catch (error) {
    fail(errorMessage(error));
  }
  // Before the pidfile and banner: whoever waits for them may signal at once.
  installSignals(server, flags.pidfile);
  writePidfile();
  if (!flags.quiet) process.stdout.write(zoneLines(server.addresses) + banner());
}

/**
 * `-plugins`: name, package and version per directive in chain order. A third-party plugin that
 * cannot be loaded says why on its line, rather than being listed as if it worked.
 */
async function listPlugins(directives: readonly DirectiveEntry[]): Promise<string> {
  const bundled = new Set(standardDirectives().map((entry) => entry.packageName));
  let out = '';
  for (const entry of directives) {
    let status = '';
    if (!bundled.has(entry.packageName)) {
      try {
        await entry.load();
      } catch (error) {
        status = `\tfailed to load: ${errorMessage(error)}`;
      }
    }
    out += `${entry.name}\t${entry.packageName ?? ''}\t${entry.version ?? ''}${status}\n`;
  }
  return out;
}

/** One line per zone per listener: `example.org.:53`, `example.org.:53 on 127.0.0.1`, `tls://.:853`. */
function zoneLines(addresses: readonly ListenerInfo[]): string {
  let out = '';
  for (const listener of addresses) {
    const scheme = listener.transport === 'dns' ? '' : `${listener.transport}://`;
    for (const zone of listener.zones) out += `${scheme}${zone}:${listener.port}${listener.host ? ` on ${listener.host}` : ''}\n`;
  }
  return out;
}

function banner(): string {
  return `Foghorn-${version}\n${platform()}/${arch()}, node${process.versions.node}\n`;
}

function removePidfileAt(pidfile: string): void {
  if (!pidfile) return;
  try {
    unlinkSync(pidfile);
  } catch {
    // Already gone: nothing to clean up.
  }
}

function installSignals(server: Server, pidfile: string): void {
  const log = server.logger;
  const removePidfile = (): void => removePidfileAt(pidfile);
  let interrupted = false;
  process.on('SIGINT', () => {
    if (interrupted) {
      log.info('SIGINT: Force quit');
      process.exit(2);
    }
    interrupted = true;
    log.info('SIGINT: Shutting down');
    removePidfile();
    // CoreDNS runs the hooks and exits without gracefully stopping the DNS servers.
    void server.stop({ graceful: false }).then((errors) => process.exit(errors.length > 0 ? 4 : 0));
  });
  process.on('SIGTERM', () => {
    log.info('SIGTERM: Shutting down servers then terminating');
    void server.stop().then(
      (errors) => {
        removePidfile();
        process.exit(errors.length > 0 ? 4 : 0);
      },
      () => {
        removePidfile();
        process.exit(3);
      },
    );
  });
  process.on('SIGQUIT', () => {
    log.info('SIGQUIT: Quitting process immediately');
    removePidfile();
    process.exit(0);
  });
  process.on('SIGUSR1', () => {
    log.info('SIGUSR1: Reloading');
    void server.reload().then((ok) => {
      if (!ok && server.lastReloadError) log.error(`SIGUSR1: ${server.lastReloadError.message}`);
    });
  });
  // CoreDNS ignores SIGHUP (only SIGUSR1 reloads); without a handler Node would exit.
  process.on('SIGHUP', () => undefined);
}

