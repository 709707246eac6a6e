// The extension's page (README.md) against its manifest: the settings table lists every
// setting of package.json, with the manifest's default, and no setting the manifest lacks.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The rows of the README's settings table: setting -> default column, as written. */
function rows(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readme.split('\n')) {
    const m = /^\| `(litmus\.[A-Za-z]+)` \| ([^|]+) \|/.exec(line);
    if (m) out.set(m[1], m[2].trim());
  }
  return out;
}

/** How the table writes a default: `unset` for an empty string, else the JSON in backticks. */
function written(value: unknown): string {
  if (value === '') return 'unset';
  return '`' + JSON.stringify(value).replace(/,/g, ', ') + '`';
}

test('the settings table of the README matches package.json', () => {
  const props: Record<string, { default?: unknown }> = manifest.contributes.configuration.properties;
  const table = rows();
  for (const [name, p] of Object.entries(props)) {
    assert.ok(table.has(name), `${name} has no row in README.md`);
    assert.equal(table.get(name), written(p.default), `${name}: the README's default`);
  }
  for (const name of table.keys()) assert.ok(name in props, `README.md lists ${name}, which package.json lacks`);
});
