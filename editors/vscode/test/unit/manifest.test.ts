// package.json: the pieces VS Code needs to activate the extension and that the protocol
// contract fixes (language id, extension, commands), checked so a manifest edit cannot drop them.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

test('activates on the litmus language and points at the bundle', () => {
  // a workspace with litmus files activates it too, so the test explorer lists them at once
  assert.deepEqual(manifest.activationEvents, ['onLanguage:litmus', 'onLanguage:cat', 'workspaceContains:**/*.litmus']);
  assert.equal(manifest.main, './dist/extension.js');
  // no repository is named (the project has no public address yet): vsce is told so, in both
  // package scripts, rather than shown a placeholder
  assert.equal(manifest.repository, undefined);
  assert.match(manifest.scripts.package, /vsce package .*--allow-missing-repository/);
  assert.match(fs.readFileSync(path.join(root, 'scripts/package-linux-x64.sh'), 'utf8'), /vsce package .*--allow-missing-repository/);
  assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'vsce needs a LICENSE');
});

test('declares the litmus language for .litmus files with its grammar and snippets', () => {
  const c = manifest.contributes;
  assert.deepEqual(c.languages.map((l: { id: string; extensions: string[] }) => [l.id, l.extensions]), [['litmus', ['.litmus']], ['cat', ['.cat', '.bell']]]);
  for (const rel of [c.languages[0].configuration, c.grammars[0].path, c.snippets[0].path]) {
    assert.ok(fs.existsSync(path.join(root, rel)), `${rel} exists`);
    JSON.parse(fs.readFileSync(path.join(root, rel), 'utf8'));
  }
  assert.equal(c.grammars[0].scopeName, 'source.litmus');
  const grammar = JSON.parse(fs.readFileSync(path.join(root, c.grammars[0].path), 'utf8'));
  assert.equal(grammar.scopeName, 'source.litmus');
});

test('declares the cat language (.cat, .bell) with its grammar, comments and the write-out command', () => {
  const c = manifest.contributes;
  const cat = c.languages.find((l: { id: string }) => l.id === 'cat');
  const conf = JSON.parse(fs.readFileSync(path.join(root, cat.configuration), 'utf8'));
  assert.deepEqual(conf.comments.blockComment, ['(*', '*)']);
  assert.ok(conf.folding.markers.start, 'comments fold');
  const g = c.grammars.find((x: { language: string }) => x.language === 'cat');
  assert.equal(g.scopeName, 'source.cat');
  assert.equal(JSON.parse(fs.readFileSync(path.join(root, g.path), 'utf8')).scopeName, 'source.cat');
  assert.ok(c.commands.some((x: { command: string }) => x.command === 'litmus.writeBuiltinModel'));
  assert.equal(c.configuration.properties['litmus.modelPath'].type, 'string');
  // per workspace folder: the server asks for it with each folder's scopeUri (docs/models.md)
  assert.equal(c.configuration.properties['litmus.modelPath'].scope, 'resource');
  // the include path likewise, a list of folders
  const inc = c.configuration.properties['litmus.includePath'];
  assert.equal(inc.type, 'array');
  assert.equal(inc.items.type, 'string');
  assert.deepEqual(inc.default, []);
  assert.equal(inc.scope, 'resource');
});

test('contributes the contract commands and the client ones, each with a title', () => {
  const ids = manifest.contributes.commands.map((c: { command: string; title: string }) => {
    assert.ok(c.title, `${c.command} has a title`);
    return c.command;
  });
  for (const id of ['litmus.verify', 'litmus.verifyUnbounded', 'litmus.showSchedule', 'litmus.copySchedule', 'litmus.stepThroughSchedule', 'litmus.clearSchedule', 'litmus.restartServer', 'litmus.verifyAllFiles', 'litmus.showAxiomatic']) {
    assert.ok(ids.includes(id), `${id} contributed`);
  }
});

test('an untrusted workspace cannot choose the server binary', () => {
  const u = manifest.capabilities.untrustedWorkspaces;
  assert.equal(u.supported, 'limited');
  assert.deepEqual(u.restrictedConfigurations, ['litmus.serverPath']);
});

test('litmus.serverPath is a window setting, listed on the User tab and honoured from every scope', () => {
  // `machine` / `machine-overridable` settings are hidden from the User tab of a remote window
  // (code-server is one) and ignored in its user settings.json: a new user found neither.
  const sp = manifest.contributes.configuration.properties['litmus.serverPath'];
  assert.equal(sp.scope, 'window');
  assert.equal(sp.type, 'string');
});

test('a platform .vsix carries the bundled server: server/ is packaged', () => {
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
  assert.ok(ignore.includes('!server/**'), '.vscodeignore keeps server/');
});
