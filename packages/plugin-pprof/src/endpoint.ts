/**
 * The `/debug/pprof` endpoints CoreDNS serves (Go's net/http/pprof), for the profiles a Node
 * process has: the index, `cmdline`, `symbol`, `profile` (CPU) and `heap`. Go's other profiles
 * (goroutine, allocs, block, mutex, threadcreate, and the execution `trace`) have no Node
 * counterpart and get Go's answer for an unknown profile.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, notFound } from '@foghorn/core';
import type { Logger } from '@foghorn/core';
import { cpuProfile, CpuProfileBusyError, heapProfile } from './profiles.js';

export const PPROF_PATH = '/debug/pprof';
/** Go's default CPU profile duration. */
export const DEFAULT_SECONDS = 30;

/** The profiles the index lists, with Go's descriptions. */
const profiles: readonly (readonly [string, string])[] = [
  ['cmdline', 'The command line invocation of the current program'],
  ['heap', 'A sampling of memory allocations of live objects. You can specify the gc GET parameter to run GC before taking the heap sample.'],
  [
    'profile',
    'CPU profile. You can specify the duration in the seconds GET parameter. After you get the profile file, use the go tool pprof command to investigate the profile.',
  ],
];

/** Go's `serveError`: a plain-text error marked as pprof's. */
function serveError(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Go-Pprof': '1', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${text}\n`);
}

function serveProfile(res: ServerResponse, name: string, profile: Buffer): void {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}"`, 'X-Content-Type-Options': 'nosniff' });
  res.end(profile);
}

function index(res: ServerResponse): void {
  const rows = profiles.map(([name]) => `<tr><td>-</td><td><a href='${name}?debug=1'>${name}</a></td></tr>`).join('\n');
  const descriptions = profiles.map(([name, text]) => `<li><div class=profile-name>${name}: </div> ${text}</li>`).join('\n');
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`<html>
<head>
<title>/debug/pprof/</title>
<style>
.profile-name{
	display:inline-block;
	width:6rem;
}
</style>
</head>
<body>
/debug/pprof/
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
${rows}
</table>
<br>
<p>
Profile Descriptions:
<ul>
${descriptions}
</ul>
</p>
</body>
</html>
`);
}

/** Go's `ParseInt` of `seconds`, 30 when absent, not a number or not positive. */
function seconds(value: string | null): number {
  const n = value !== null && /^[+-]?\d+$/.test(value) ? Number(value) : 0;
  return n > 0 ? n : DEFAULT_SECONDS;
}

/** The request handler of one pprof listener. */
export function servePprof(log: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === PPROF_PATH) {
      // Go's http.Redirect.
      res.writeHead(302, { Location: `${PPROF_PATH}/`, 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<a href="${PPROF_PATH}/">Found</a>.\n\n`);
      return;
    }
    if (!path.startsWith(`${PPROF_PATH}/`)) return notFound(req, res);
    const name = path.slice(PPROF_PATH.length + 1);
    switch (name) {
      case '':
        return index(res);
      case 'cmdline':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end(process.argv.join('\0'));
        return;
      case 'symbol':
        // Profiles carry function names: there are no addresses to look up.
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end('num_symbols: 0\n');
        return;
      case 'profile':
        cpuProfile(seconds(url.searchParams.get('seconds'))).then(
          (profile) => serveProfile(res, 'profile', profile),
          (error: unknown) => {
            if (error instanceof CpuProfileBusyError) return serveError(res, 500, error.message);
            log.error(`CPU profile: ${errorMessage(error)}`);
            serveError(res, 500, `Could not enable CPU profiling: ${errorMessage(error)}`);
          },
        );
        return;
      case 'heap': {
        const gc = Number(url.searchParams.get('gc') ?? '0') > 0;
        heapProfile(gc).then(
          (profile) => serveProfile(res, 'heap', profile),
          (error: unknown) => serveError(res, 500, `Could not write heap profile: ${errorMessage(error)}`),
        );
        return;
      }
      default:
        return serveError(res, 404, 'Unknown profile');
    }
  };
}
