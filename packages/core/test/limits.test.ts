import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultMaxConnections, DEFAULT_MAX_TCP_CONNECTIONS, descriptorLimit, raiseReceiveBuffer } from '../src/limits.js';

async function boundSocket(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

test('the UDP receive buffer is raised as far as net.core.rmem_max allows, and a cap is reported', async (t) => {
  const socket = await boundSocket();
  t.after(() => socket.close());
  const rmemMax = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
  const before = socket.getRecvBufferSize();
  // Linux stores twice what was asked, up to twice rmem_max (socket(7)).
  const within = raiseReceiveBuffer(socket, Math.min(rmemMax, 1 << 20));
  assert.equal(within.capped, false);
  assert.ok(within.size >= Math.min(rmemMax, 1 << 20) && within.size >= before, `${within.size} bytes`);
  const beyond = raiseReceiveBuffer(socket, 4 * rmemMax);
  assert.equal(beyond.capped, true);
  assert.equal(beyond.size, 2 * rmemMax);
});

test('RLIMIT_NOFILE is read from /proc, and the default TCP connection cap keeps half of it free', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'limits');
  writeFileSync(file, 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n');
  assert.deepEqual(descriptorLimit(file), { soft: 1024, hard: 4096 });
  assert.equal(descriptorLimit(join(dir, 'absent')), undefined);
  assert.equal(defaultMaxConnections({ soft: 1024, hard: 4096 }), 512);
  assert.equal(defaultMaxConnections({ soft: 1_048_576, hard: 1_048_576 }), DEFAULT_MAX_TCP_CONNECTIONS);
  assert.equal(defaultMaxConnections({ soft: Infinity, hard: Infinity }), DEFAULT_MAX_TCP_CONNECTIONS);
  assert.equal(defaultMaxConnections(undefined), DEFAULT_MAX_TCP_CONNECTIONS);
});

test('Node raises the soft descriptor limit to the hard one at start-up, as Go does for CoreDNS', () => {
  // `ulimit -Sn` lowers only the soft limit of the shell, which the node child inherits.
  const hard = descriptorLimit()!.hard;
  const soft = Math.min(1024, hard);
  const script = `import('${new URL('../src/limits.js', import.meta.url).href}').then((m) => console.log(JSON.stringify(m.descriptorLimit())))`;
  const out = execFileSync('bash', ['-c', `ulimit -Sn ${soft} && exec "$0" -e "$1"`, process.execPath, script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { soft: hard, hard });
});
