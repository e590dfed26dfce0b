/**
 * `npm run differential`: the same Corefile and the same queries through Foghorn and a real
 * CoreDNS, side by side, and every difference between their answers printed. It is how a plugin
 * that CoreDNS also has shows it answers as CoreDNS does, and where it does not, whether that is
 * on purpose: each case lists the differences it keeps, with the reason.
 *
 * CoreDNS is not a dependency: point `COREDNS_BINARY` (or `--coredns PATH`) at a `coredns` binary
 * built with the plugins of the cases run. Without one the run stops and says so.
 * Cases are the modules of `bench/differential/` (one per plugin); name some to run only those:
 * `npm run differential -- nsid header`. `--out FILE` also writes the report as Markdown.
 *
 * Per case: the Corefile's `{port}` becomes each server's own port and `{dir}` a fresh directory
 * holding the case's files; both servers start, every query goes to both over the transport it
 * names, and the replies are compared section by section (records sorted, as CoreDNS's
 * `test.SortAndCheck` does), with the header's rcode and flags and the OPT record's options.
 * The message ID is never compared, nor TTLs where the case says they decrease with time.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import dnsPacket from 'dns-packet';
import type { Packet } from 'dns-packet';
import { decodeReply, freeDnsPort, tcpExchange, udpExchange } from '@foghorn/testkit';
import type { Reply } from '@foghorn/testkit';
import type { DifferentialCase, DifferentialQuery, CaseContext } from './differential/case.js';

const here = dirname(fileURLToPath(import.meta.url));
const cliPath = join(here, '..', '..', 'packages', 'foghorn', 'dist', 'src', 'cli.js');

interface Options {
  readonly coredns: string | undefined;
  readonly names: readonly string[];
  readonly out: string | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  let coredns = process.env['COREDNS_BINARY'];
  let out: string | undefined;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--coredns') coredns = argv[++i];
    else if (arg === '--out') out = argv[++i];
    else names.push(arg);
  }
  return { coredns, names, out };
}

/** Encodes a query as the case asks: RD set, EDNS when `udpSize`, `do` or `nsid` is asked. */
function encodeQuery(q: DifferentialQuery, id: number): Buffer {
  const packet: Packet = {
    type: 'query',
    id,
    flags: (q.rd ?? true) ? dnsPacket.RECURSION_DESIRED : 0,
    questions: [{ name: q.name, type: q.type as 'A', class: (q.class ?? 'IN') as 'IN' }],
  };
  if (q.udpSize !== undefined || q.do || q.nsid) {
    packet.additionals = [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: q.udpSize ?? 1232,
        flags: q.do ? dnsPacket.DNSSEC_OK : 0,
        options: q.nsid ? [{ code: 3, data: Buffer.alloc(0) }] : [],
      } as never,
    ];
  }
  return dnsPacket.encode(packet);
}

/** A reply as comparable lines: header, then each section's records as text, sorted. */
function describeReply(reply: Reply | null, ignoreTtl: boolean): string[] {
  if (reply === null) return ['(no reply)'];
  const flags = ['aa', 'tc', 'rd', 'ra', 'ad', 'cd'].filter((f) => (reply as unknown as Record<string, boolean>)[`flag_${f}`]);
  const lines = [`rcode ${reply.rcode} flags ${flags.join(' ')}`];
  const section = (title: string, records: readonly unknown[] | undefined): void => {
    const texts = (records ?? []).map((r) => recordText(r as Record<string, unknown>, ignoreTtl)).sort();
    for (const text of texts) lines.push(`${title} ${text}`);
  };
  section('question', reply.questions);
  section('answer', reply.answers);
  section('authority', reply.authorities);
  section('additional', reply.additionals);
  return lines;
}

function recordText(r: Record<string, unknown>, ignoreTtl: boolean): string {
  if (r['type'] === 'OPT') {
    const options = (r['options'] as { code: number; data?: Buffer }[] | undefined) ?? [];
    return `OPT size=${String(r['udpPayloadSize'])} do=${Boolean(r['flag_do'])} options=${options.map((o) => `${o.code}:${o.data?.toString('hex') ?? ''}`).join(',')}`;
  }
  const ttl = r['ttl'] === undefined || ignoreTtl ? '' : ` ${String(r['ttl'])}`;
  const data = r['data'];
  const rdata = Buffer.isBuffer(data) ? data.toString('hex') : JSON.stringify(data, (_k, v: unknown) => (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer' ? Buffer.from((v as { data: number[] }).data).toString('hex') : v));
  return `${String(r['name']).toLowerCase()}${ttl} ${String(r['class'] ?? '')} ${String(r['type'])} ${rdata}`;
}

async function exchange(port: number, q: DifferentialQuery, id: number): Promise<Reply | null> {
  const wire = encodeQuery(q, id);
  const raw = q.transport === 'tcp' ? (await tcpExchange({ port }, wire, 3000))[0] : await udpExchange({ port }, wire, 3000);
  return raw ? decodeReply(raw) : null;
}

/** Starts a server and waits until it answers over UDP (any reply counts). */
async function startServer(label: string, command: string, args: readonly string[], port: number, cwd: string): Promise<{ child: ChildProcess; output: () => string }> {
  let output = '';
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${label} exited with ${child.exitCode}:\n${output}`);
    const reply = await udpExchange({ port }, encodeQuery({ name: '.', type: 'SOA' }, 1), 300).catch(() => null);
    if (reply) return { child, output: () => output };
  }
  child.kill('SIGKILL');
  throw new Error(`${label} did not answer on port ${port} within 15 s:\n${output}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

interface Difference {
  readonly query: string;
  readonly foghorn: readonly string[];
  readonly coredns: readonly string[];
  readonly kept: string | undefined;
}

async function runCase(c: DifferentialCase, coredns: string): Promise<{ queries: number; differences: Difference[] }> {
  // The directory is `{dir}` in a Corefile, where a space would split the path into two tokens.
  const dir = mkdtempSync(join(tmpdir(), `differential-${c.name.replace(/[^A-Za-z0-9]+/g, '-')}-`));
  const ports = { foghorn: await freeDnsPort(), coredns: await freeDnsPort() };
  const context: CaseContext = { dir, coredns };
  const outside = c.setup ? await c.setup(context) : undefined;
  const children: ChildProcess[] = [];
  try {
    for (const [file, contents] of Object.entries(c.files ?? {})) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), contents);
    }
    const vars = { dir, ...(outside?.vars ?? {}) };
    const corefileFor = (port: number): string => c.corefile.replace(/\{(\w+)\}/g, (whole, key: string) => (key === 'port' ? String(port) : (vars as Record<string, string>)[key] ?? whole));
    writeFileSync(join(dir, 'Corefile.foghorn'), corefileFor(ports.foghorn));
    writeFileSync(join(dir, 'Corefile.coredns'), corefileFor(ports.coredns));
    const f = await startServer('foghorn', process.execPath, [cliPath, '-quiet', '-conf', join(dir, 'Corefile.foghorn')], ports.foghorn, dir);
    children.push(f.child);
    const d = await startServer('coredns', coredns, ['-quiet', '-conf', join(dir, 'Corefile.coredns')], ports.coredns, dir);
    children.push(d.child);
    if (c.settleMs) await new Promise((resolve) => setTimeout(resolve, c.settleMs));
    const differences: Difference[] = [];
    let id = 100;
    for (const q of c.queries) {
      const label = `${q.name} ${q.type}${q.class && q.class !== 'IN' ? ` ${q.class}` : ''}${q.transport === 'tcp' ? ' tcp' : ''}${q.do ? ' +do' : ''}${q.nsid ? ' +nsid' : ''}${q.udpSize ? ` +bufsize=${q.udpSize}` : ''}`;
      const [a, b] = await Promise.all([exchange(ports.foghorn, q, id), exchange(ports.coredns, q, id)]);
      id++;
      const foghorn = describeReply(a, q.ignoreTtl ?? false);
      const theirs = describeReply(b, q.ignoreTtl ?? false);
      if (foghorn.join('\n') !== theirs.join('\n')) differences.push({ query: label, foghorn, coredns: theirs, kept: c.kept?.[label] });
    }
    return { queries: c.queries.length, differences };
  } finally {
    for (const child of children) await stop(child);
    await outside?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (!options.coredns) {
    console.error('differential: no CoreDNS to compare with: set COREDNS_BINARY or pass --coredns PATH');
    process.exit(2);
  }
  const caseDir = join(here, 'differential');
  const modules = readdirSync(caseDir).filter((f) => f.endsWith('.js') && f !== 'case.js').sort();
  const cases: DifferentialCase[] = [];
  for (const file of modules) {
    const mod = (await import(pathToFileURL(join(caseDir, file)).href)) as { default?: DifferentialCase | DifferentialCase[] };
    // A module without a default export holds what several cases share (a zone), no case.
    if (mod.default === undefined) continue;
    for (const c of Array.isArray(mod.default) ? mod.default : [mod.default]) if (options.names.length === 0 || options.names.includes(c.plugin)) cases.push(c);
  }
  const report: string[] = [`# Differential: Foghorn against CoreDNS`, '', `${new Date().toISOString()}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`, ''];
  report.push('| case | queries | differences | kept on purpose |', '|---|---|---|---|');
  const details: string[] = [];
  let unexplained = 0;
  for (const c of cases) {
    const result = await runCase(c, options.coredns);
    const kept = result.differences.filter((d) => d.kept !== undefined).length;
    unexplained += result.differences.length - kept;
    report.push(`| ${c.name} | ${result.queries} | ${result.differences.length} | ${kept} |`);
    for (const d of result.differences) {
      details.push(`### ${c.name}: ${d.query}${d.kept ? ` (kept: ${d.kept})` : ' (NOT EXPLAINED)'}`, '', '```diff');
      const theirs = new Set(d.coredns);
      const ours = new Set(d.foghorn);
      for (const line of d.coredns) if (!ours.has(line)) details.push(`- ${line}   (coredns)`);
      for (const line of d.foghorn) if (!theirs.has(line)) details.push(`+ ${line}   (foghorn)`);
      details.push('```', '');
    }
  }
  const text = [...report, '', ...details].join('\n');
  console.log(text);
  if (options.out) writeFileSync(options.out, text + '\n');
  process.exitCode = unexplained === 0 ? 0 : 1;
}

await main();
