import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorefileError } from '@foghorn/corefile';
import { ConfigError, ErrorCode, KubeConnectionError, PluginError, PluginLoadError, StartupError, ZoneFileError } from '../src/errors.js';

test('every error class carries its registered code and name, and its cause', () => {
  const cause = new Error('underneath');
  const cases: [Error & { code: string }, string, string][] = [
    [new ConfigError('bad', { cause }), ErrorCode.CONFIG, 'ConfigError'],
    [new PluginError('bad', { cause }), ErrorCode.PLUGIN, 'PluginError'],
    [new PluginLoadError('bad', { cause }), ErrorCode.PLUGIN_LOAD, 'PluginLoadError'],
    [new KubeConnectionError('bad', { cause }), ErrorCode.KUBE_CONNECTION, 'KubeConnectionError'],
  ];
  for (const [error, code, name] of cases) {
    assert.equal(error.code, code);
    assert.equal(error.name, name);
    assert.equal(error.message, 'bad');
    assert.equal(error.cause, cause);
    assert.ok(error instanceof Error);
  }
  const zoneFile = new ZoneFileError('db.example', 3, 'bad A');
  assert.deepEqual([zoneFile.code, zoneFile.name, zoneFile.message, zoneFile.line], [ErrorCode.ZONEFILE, 'ZoneFileError', 'db.example:3: bad A', 3]);
  const at = { file: 'Corefile', line: 7, column: 5 };
  const startup = new StartupError('loadbalance', at, new Error('plugin/loadbalance: wrong weight value'));
  assert.deepEqual(
    [startup.code, startup.name, startup.message, startup.directive],
    [ErrorCode.STARTUP, 'StartupError', 'plugin/loadbalance: Corefile:7:5 - wrong weight value', 'loadbalance'],
    'a hook that already names its plugin is not prefixed twice',
  );
  assert.equal(new StartupError('health', at, 'listen tcp :8080: bind: address already in use').message, 'plugin/health: Corefile:7:5 - listen tcp :8080: bind: address already in use');
  const codes = new Set([...cases.map(([, code]) => code), zoneFile.code, startup.code]);
  assert.deepEqual(codes, new Set(Object.values(ErrorCode)), 'every registered code has a class');
  assert.equal(new CorefileError('Error during parsing: x', { file: 'Corefile', line: 1, column: 1 }).code, ErrorCode.CONFIG);
});

test('PluginError answers SERVFAIL unless given an rcode', () => {
  assert.equal(new PluginError('x').rcode, 2);
  assert.equal(new PluginError('x', { rcode: 5 }).rcode, 5);
});

test('instanceof goes by brand: another copy of core is recognised, another class is not', () => {
  // What an error thrown by a second installed copy of @foghorn/core looks like from here.
  const foreign = Object.assign(new Error('from elsewhere'), { [Symbol.for('foghorn.PluginError')]: true });
  assert.ok(foreign instanceof PluginError);
  assert.ok(!(foreign instanceof ConfigError));
  assert.ok(!(new ConfigError('x') instanceof PluginError));
  assert.ok(!(new Error('plain') instanceof PluginLoadError));
  assert.ok(new KubeConnectionError('x') instanceof KubeConnectionError);
});
