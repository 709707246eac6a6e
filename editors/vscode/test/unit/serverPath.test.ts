import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { bundledServerPath, chooseServer, expandPath, resolveServerPath, ResolveEnv } from '../../src/logic/serverPath';

function env(files: string[], extra: Partial<ResolveEnv> = {}): ResolveEnv {
  const set = new Set(files);
  return {
    pathVar: '/usr/local/bin:/usr/bin::/opt/bin',
    platform: 'linux',
    home: '/home/u',
    workspaceFolder: '/ws',
    isExecutable: (p) => set.has(p),
    ...extra,
  };
}

test('a bare name is looked up on PATH, first match wins', () => {
  assert.deepEqual(resolveServerPath('litmus', env(['/usr/bin/litmus', '/opt/bin/litmus'])), {
    ok: true,
    path: '/usr/bin/litmus',
  });
  assert.deepEqual(resolveServerPath(undefined, env(['/opt/bin/litmus'])), { ok: true, path: '/opt/bin/litmus' });
  assert.deepEqual(resolveServerPath('  ', env(['/opt/bin/litmus'])), { ok: true, path: '/opt/bin/litmus' });
});

test('a missing binary gives a message naming the setting and the fix', () => {
  const r = resolveServerPath('litmus', env([]));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.message, /cannot find the language server binary “litmus” on PATH/);
    assert.match(r.message, /litmus\.serverPath/);
    assert.match(r.message, /cargo build --release -p litmus/);
  }
  const p = resolveServerPath('/nope/litmus', env([]));
  assert.equal(p.ok, false);
  if (!p.ok) assert.match(p.message, /\/nope\/litmus .*does not exist or is not executable/);
});

test('paths are used as given, relative ones against the workspace folder', () => {
  assert.deepEqual(resolveServerPath('/opt/x/litmus', env(['/opt/x/litmus'])), { ok: true, path: '/opt/x/litmus' });
  assert.deepEqual(resolveServerPath('target/release/litmus', env(['/ws/target/release/litmus'])), {
    ok: true,
    path: '/ws/target/release/litmus',
  });
  assert.deepEqual(resolveServerPath('./litmus', env(['/home/u/litmus'], { workspaceFolder: undefined })), {
    ok: true,
    path: '/home/u/litmus',
  });
});

test('~ and ${workspaceFolder} are expanded', () => {
  assert.equal(expandPath('~/bin/litmus', { home: '/home/u' }), '/home/u/bin/litmus');
  assert.equal(expandPath('${workspaceFolder}/target/debug/litmus', { home: '/h', workspaceFolder: '/ws' }), '/ws/target/debug/litmus');
  assert.equal(expandPath('${userHome}/x', { home: '/h' }), '/h/x');
  assert.deepEqual(resolveServerPath('~/bin/litmus', env(['/home/u/bin/litmus'])), { ok: true, path: '/home/u/bin/litmus' });
});

test('on Windows PATHEXT extensions are tried', () => {
  const e = env(['C:\\tools\\litmus.EXE'], { platform: 'win32', pathVar: 'C:\\bin;C:\\tools', pathExt: '.COM;.EXE' });
  assert.deepEqual(resolveServerPath('litmus', e), { ok: true, path: 'C:\\tools\\litmus.EXE' });
});

test('the bundled server is used unless litmus.serverPath is set', () => {
  const bundled = bundledServerPath('/ext/litmus-0.1.0-linux-x64', 'linux');
  assert.equal(bundled, '/ext/litmus-0.1.0-linux-x64/server/litmus');
  const e = env([bundled, '/usr/bin/litmus', '/opt/litmus']);
  // not set: the bundled copy, even though one is on PATH
  assert.deepEqual(chooseServer({ value: 'litmus', explicit: false }, bundled, e), { ok: true, path: bundled, bundled: true });
  // set by the user, even to the default name: the setting wins
  assert.deepEqual(chooseServer({ value: 'litmus', explicit: true }, bundled, e), { ok: true, path: '/usr/bin/litmus' });
  assert.deepEqual(chooseServer({ value: '/opt/litmus', explicit: true }, bundled, e), { ok: true, path: '/opt/litmus' });
});

test('without a bundled server (the universal .vsix) the setting or PATH is used', () => {
  const bundled = bundledServerPath('/ext/litmus-0.1.0', 'linux');
  assert.deepEqual(chooseServer({ value: undefined, explicit: false }, bundled, env(['/usr/bin/litmus'])), {
    ok: true,
    path: '/usr/bin/litmus',
  });
  assert.deepEqual(chooseServer({ value: undefined, explicit: false }, undefined, env(['/usr/bin/litmus'])), {
    ok: true,
    path: '/usr/bin/litmus',
  });
  const r = chooseServer({ value: undefined, explicit: false }, bundled, env([]));
  assert.equal(r.ok, false);
  assert.equal(bundledServerPath('C:\\ext\\litmus', 'win32'), 'C:\\ext\\litmus\\server\\litmus.exe');
});
