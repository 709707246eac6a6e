// The extension's page (README.md) against its manifest: the settings table lists every
// setting of package.json with the manifest's type and default, names every value an
// enumerated setting takes, and lists no setting the manifest lacks. The page names no
// placeholder repository and the manifest's icon exists.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

interface Row {
  type: string;
  default: string;
  meaning: string;
}

interface Setting {
  type: string;
  default?: unknown;
  enum?: string[];
  items?: { type: string; enum?: string[] };
}

/** The rows of the README's settings table: setting -> its type, default and meaning, as written. */
export function rows(text: string): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const line of text.split('\n')) {
    const m = /^\| `(litmus\.[A-Za-z]+)` \| ([^|]+) \| ([^|]+) \| (.*) \|$/.exec(line);
    if (m) out.set(m[1], { type: m[2].trim(), default: m[3].trim(), meaning: m[4] });
  }
  return out;
}

/** How the table writes a default: `unset` for an empty string, else the JSON in backticks. */
function written(value: unknown): string {
  if (value === '') return 'unset';
  return '`' + JSON.stringify(value).replace(/,/g, ', ') + '`';
}

/** How the table writes a type: the schema's, `list of strings` for an array of strings. */
function typeWord(p: Setting): string {
  return p.type === 'array' ? `list of ${p.items?.type}s` : p.type;
}

function problems(text: string): string[] {
  const props: Record<string, Setting> = manifest.contributes.configuration.properties;
  const table = rows(text);
  const out: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    const r = table.get(name);
    if (!r) {
      out.push(`${name} has no row in README.md`);
      continue;
    }
    if (r.default !== written(p.default)) out.push(`${name}: the README's default ${r.default}, package.json's ${written(p.default)}`);
    if (r.type !== typeWord(p)) out.push(`${name}: the README's type ${r.type}, package.json's ${typeWord(p)}`);
    for (const v of p.enum ?? p.items?.enum ?? []) {
      if (!r.meaning.includes('`' + v + '`') && !r.meaning.includes('`"' + v + '"`')) out.push(`${name}: the README does not name the value ${v}`);
    }
  }
  for (const name of table.keys()) if (!(name in props)) out.push(`README.md lists ${name}, which package.json lacks`);
  return out;
}

test('the settings table of the README matches package.json: every setting, its type, default and values', () => {
  assert.ok(rows(readme).size >= 12, 'the table is read');
  assert.deepEqual(problems(readme), []);
});

test('the settings check finds a wrong default, a wrong type, a missing value and a missing row', () => {
  const wrong = readme
    .replace('| `litmus.loopBound` | integer | `8` |', '| `litmus.loopBound` | integer | `9` |')
    .replace('| `litmus.timeout` | number |', '| `litmus.timeout` | string |')
    .replace('`dpor`', 'DPOR')
    .replace(/^\| `litmus\.maxJobs`.*\n/m, '');
  const found = problems(wrong);
  for (const what of ['litmus.loopBound: the README', 'litmus.timeout: the README', 'litmus.engine: the README does not name the value dpor', 'litmus.maxJobs has no row']) {
    assert.ok(found.some((p) => p.startsWith(what)), `${what} in ${JSON.stringify(found)}`);
  }
});

test('the page says what the engine setting runs, as the server does (MCR only under PSO)', () => {
  const engine = manifest.contributes.configuration.properties['litmus.engine'];
  for (const text of [engine.description, engine.enumDescriptions[0], rows(readme).get('litmus.engine')!.meaning]) {
    assert.match(text, /DPOR and the reference explorer \(and MCR where a thread loops without awaiting,? under PSO/);
    assert.doesNotMatch(text, /the other three|of the others/);
  }
});

test('the page names every dialect, the commands users look for, and no placeholder', () => {
  for (const word of ['AArch64', 'RISC-V', 'POWER', 'ARMv7', 'C11', 'Linux kernel', 'Check for Every Iteration', 'Cancel Verification', 'Restart Language Server']) {
    assert.ok(readme.includes(word), `README.md names ${word}`);
  }
  // every command of the palette is on the page, by its title
  const flat = readme.replace(/\s+/g, ' ');
  for (const c of manifest.contributes.commands as { title: string }[]) assert.ok(flat.includes(`Litmus: ${c.title}`), `README.md names Litmus: ${c.title}`);
  assert.doesNotMatch(readme, /hover with the schedule/);
  assert.doesNotMatch(JSON.stringify(manifest), /example\.invalid/);
  assert.ok(fs.existsSync(path.join(root, manifest.icon)), 'the icon exists');
  const png = fs.readFileSync(path.join(root, manifest.icon));
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'a 128x128 icon');
});
