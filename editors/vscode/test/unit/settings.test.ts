import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  CAT_KEYS,
  DEFAULT_SETTINGS,
  fromObject,
  needsRestart,
  normalizeModels,
  OPEN_SERVER_PATH_SETTING,
  SERVER_KEYS,
  serverPathIsExplicit,
  toCatSettings,
  toServerSettings,
} from '../../src/logic/settings';

test('an empty configuration gives the contract defaults', () => {
  assert.deepEqual(toServerSettings(() => undefined), {
    models: ['sc', 'tso', 'pso'],
    loopBound: 8,
    timeout: 10,
    engine: 'auto',
    verifyOnSave: true,
    verifyOnChange: false,
    unbounded: 'off',
    maxJobs: 0,
    maxMemory: 0,
  });
});

test('valid values pass through unchanged', () => {
  const s = fromObject({
    models: ['tso'],
    loopBound: 3,
    timeout: 0,
    engine: 'exhaustive',
    verifyOnSave: false,
    verifyOnChange: true,
    unbounded: 'onSave',
    maxJobs: 2,
    maxMemory: 512,
    serverPath: '/opt/litmus',
  });
  assert.deepEqual(s, {
    models: ['tso'],
    loopBound: 3,
    timeout: 0,
    engine: 'exhaustive',
    verifyOnSave: false,
    verifyOnChange: true,
    unbounded: 'onSave',
    maxJobs: 2,
    maxMemory: 512,
  });
  assert.equal('serverPath' in s, false, 'the extension-only serverPath is not sent to the server');
});

test('models are deduplicated, lower-cased and put in SC, TSO, PSO order', () => {
  assert.deepEqual(normalizeModels(['PSO', 'sc', 'pso', ' tso ']), ['sc', 'tso', 'pso']);
  assert.deepEqual(normalizeModels(['pso', 'arm', 3]), ['pso']);
});

test('an empty or unusable model list means all three models', () => {
  assert.deepEqual(normalizeModels([]), ['sc', 'tso', 'pso']);
  assert.deepEqual(normalizeModels(['arm']), ['sc', 'tso', 'pso']);
  assert.deepEqual(normalizeModels('tso'), ['sc', 'tso', 'pso']);
});

test('bad numbers, engines and booleans fall back to their defaults', () => {
  const s = fromObject({ loopBound: -1, timeout: Number.NaN, engine: 'z3', verifyOnSave: 'yes', verifyOnChange: 1 });
  assert.equal(s.loopBound, DEFAULT_SETTINGS.loopBound);
  assert.equal(s.timeout, DEFAULT_SETTINGS.timeout);
  assert.equal(s.engine, 'auto');
  assert.equal(s.verifyOnSave, true);
  assert.equal(s.verifyOnChange, false);
  assert.equal(fromObject({ timeout: Infinity }).timeout, 10);
  assert.equal(fromObject({ loopBound: '4' }).loopBound, 8);
  assert.equal(fromObject({ unbounded: true }).unbounded, 'off');
  assert.equal(fromObject({ unbounded: 'always' }).unbounded, 'off');
});

test('a fractional loop bound is rounded down, a fractional timeout kept', () => {
  const s = fromObject({ loopBound: 2.9, timeout: 0.5 });
  assert.equal(s.loopBound, 2);
  assert.equal(s.timeout, 0.5);
});

test('a non-object section gives the defaults', () => {
  assert.deepEqual(fromObject(null), toServerSettings(() => undefined));
  assert.deepEqual(fromObject([1, 2]), toServerSettings(() => undefined));
});

test('the server keys are exactly the contract settings, and match package.json', () => {
  assert.deepEqual([...SERVER_KEYS].sort(), [
    'litmus.engine',
    'litmus.loopBound',
    'litmus.maxJobs',
    'litmus.maxMemory',
    'litmus.models',
    'litmus.timeout',
    'litmus.unbounded',
    'litmus.verifyOnChange',
    'litmus.verifyOnSave',
  ]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const manifest = require('../../../package.json');
  const props = manifest.contributes.configuration.properties;
  for (const key of SERVER_KEYS) {
    const short = key.slice('litmus.'.length) as keyof typeof DEFAULT_SETTINGS;
    assert.ok(props[key], `package.json declares ${key}`);
    assert.deepEqual(props[key].default, DEFAULT_SETTINGS[short], `default of ${key}`);
  }
  // Unset by default: the Settings editor shows it empty, as its text says (the bundled server,
  // else `litmus` on PATH).
  assert.equal(props['litmus.serverPath'].default, '');
});

test('a change of litmus.serverPath restarts the server; other settings do not', () => {
  // VS Code's affectsConfiguration is true for the section and for the key itself
  const change = (...keys: string[]) => (k: string) => keys.some((c) => c === k || c.startsWith(`${k}.`) || k.startsWith(`${c}.`));
  assert.equal(needsRestart(change('litmus.serverPath')), true);
  assert.equal(needsRestart(change('litmus')), true);
  assert.equal(needsRestart(change('litmus.timeout')), false);
  assert.equal(needsRestart(change('editor.fontSize')), false);
});

test('serverPath counts as set in user (local or remote) settings, and in a trusted workspace', () => {
  assert.equal(serverPathIsExplicit(undefined, true), false);
  assert.equal(serverPathIsExplicit({}, true), false);
  assert.equal(serverPathIsExplicit({ globalValue: '' }, true), false);
  assert.equal(serverPathIsExplicit({ globalValue: '/opt/litmus' }, false), true);
  // even set to the default name, a user's value wins over the bundled server
  assert.equal(serverPathIsExplicit({ globalValue: 'litmus' }, true), true);
  assert.equal(serverPathIsExplicit({ workspaceValue: './target/debug/litmus' }, true), true);
  assert.equal(serverPathIsExplicit({ workspaceFolderValue: './litmus' }, true), true);
  // an untrusted workspace cannot choose the binary
  assert.equal(serverPathIsExplicit({ workspaceValue: '/tmp/evil' }, false), false);
  assert.equal(serverPathIsExplicit({ workspaceFolderValue: '/tmp/evil' }, false), false);
});

test('"Open Settings" searches for the setting itself', () => {
  assert.deepEqual([...OPEN_SERVER_PATH_SETTING], ['workbench.action.openSettings', 'litmus.serverPath']);
});

test('the cat settings: the model path and the include path as lists of strings, per folder', () => {
  const of = (o: Record<string, unknown>) => toCatSettings((k) => o[k]);
  assert.deepEqual(of({}), { modelPath: '', includePath: [] });
  assert.deepEqual(of({ modelPath: 'models/a.cat', includePath: ['lib', '/abs/lib'] }), {
    modelPath: 'models/a.cat',
    includePath: ['lib', '/abs/lib'],
  });
  // one folder as a string is a list of one; what is not a path is left out
  assert.deepEqual(of({ includePath: 'lib' }).includePath, ['lib']);
  assert.deepEqual(of({ modelPath: 3, includePath: ['a', 4, '', null, 'b'] }), { modelPath: '', includePath: ['a', 'b'] });
  // a change of the include path is told to the server, which keeps it between requests
  assert.deepEqual([...CAT_KEYS], ['litmus.includePath']);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const manifest = require('../../../package.json');
  for (const key of CAT_KEYS) assert.ok(manifest.contributes.configuration.properties[key], `package.json declares ${key}`);
});
