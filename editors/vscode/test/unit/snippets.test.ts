// The snippets: well-formed, and the whole-test snippets, expanded with their default
// placeholder values, are accepted by `litmus check` with the verdicts their comments promise
// (when a litmus binary is available: LITMUS_BIN, else target/release or target/debug).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

interface Snippet {
  prefix: string | string[];
  body: string[];
  description: string;
}

const root = path.resolve(__dirname, '../../..');
const snippets: Record<string, Snippet> = JSON.parse(fs.readFileSync(path.join(root, 'snippets/litmus.json'), 'utf8'));

/**
 * The text a snippet inserts when every placeholder keeps its default (a choice its first
 * option): `${1:x}` → `x` (nested placeholders expanded too), `${1|a,b|}` → `a`, `$1` / `${1}`
 * → nothing, `\\$` `\\}` `\\\\` → the character.
 */
export function expand(body: string[]): string {
  const src = body.join('\n');
  let i = 0;
  function seq(inside: boolean): string {
    let out = '';
    while (i < src.length) {
      const c = src[i];
      if (c === '\\' && i + 1 < src.length && '$}\\'.includes(src[i + 1])) {
        out += src[i + 1];
        i += 2;
      } else if (inside && c === '}') {
        i++;
        return out;
      } else if (c === '$') {
        const rest = src.slice(i);
        let m: RegExpMatchArray | null;
        if ((m = rest.match(/^\$\{\d+:/))) {
          i += m[0].length;
          out += seq(true);
        } else if ((m = rest.match(/^\$\{\d+\|([^|]*)\|\}/))) {
          out += m[1].split(',')[0];
          i += m[0].length;
        } else if ((m = rest.match(/^\$(\d+|\{\d+\})/))) {
          i += m[0].length;
        } else {
          out += c;
          i++;
        }
      } else {
        out += c;
        i++;
      }
    }
    return out;
  }
  return seq(false);
}

function litmusBinary(): string | undefined {
  const candidates = [
    process.env.LITMUS_BIN,
    path.resolve(root, '../../target/release/litmus'),
    path.resolve(root, '../../target/debug/litmus'),
  ];
  return candidates.find((p): p is string => !!p && fs.existsSync(p));
}

test('expand keeps defaults, first choices and escaped characters', () => {
  assert.equal(expand(['a ${1:x} = ${2|exists,forall|} \\$1 ${3} $0 \\}']), 'a x = exists $1   }');
  assert.equal(expand(['{ ${1:y} }']), '{ y }');
});

test('every snippet has a prefix, a description and a body', () => {
  assert.ok(Object.keys(snippets).length >= 10);
  for (const [name, s] of Object.entries(snippets)) {
    assert.ok(s.prefix.length > 0, `${name}: prefix`);
    assert.ok(s.description.length > 0, `${name}: description`);
    assert.ok(Array.isArray(s.body) && s.body.length > 0, `${name}: body`);
    const text = expand(s.body);
    assert.ok(!text.includes('${'), `${name}: unexpanded placeholder in ${JSON.stringify(text)}`);
    // every `$` in the body is escaped or starts a tab stop / placeholder
    const bare = s.body.join('\n').replace(/\\[$}\\]/g, '').replace(/\$(\d+|\{\d+[:|}])/g, '');
    assert.ok(!bare.includes('$'), `${name}: stray $ in the body`);
  }
});

/** Whole-test snippets and what `litmus check --model M` must exit with (0 pass, 1 violation). */
const verdicts: Record<string, Record<string, number>> = {
  'New litmus test': { sc: 0, tso: 0 },
  'Store buffering (SB)': { sc: 0, tso: 0 },
  'Message passing (MP)': { sc: 0, tso: 0, pso: 0 },
  "Dekker's mutual exclusion": { sc: 0, tso: 1 },
  "Peterson's mutual exclusion": { sc: 0, tso: 1 },
  'x86 store buffering (herd7)': { sc: 0, tso: 0 },
};

test('whole-test snippets are complete tests', () => {
  for (const name of Object.keys(verdicts)) {
    assert.ok(snippets[name], `snippet ${name} exists`);
    const text = expand(snippets[name].body);
    assert.match(text, /^(\/\/[^\n]*\n)*(litmus|X86) /, `${name} starts with its header`);
  }
});

const bin = litmusBinary();
test('whole-test snippets check with the expected verdicts', { skip: bin ? false : 'no litmus binary (set LITMUS_BIN or cargo build -p litmus)' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'litmus-snippets-'));
  try {
    for (const [name, byModel] of Object.entries(verdicts)) {
      const file = path.join(dir, name.replace(/[^A-Za-z]+/g, '_') + '.litmus');
      fs.writeFileSync(file, expand(snippets[name].body));
      for (const [model, want] of Object.entries(byModel)) {
        const r = spawnSync(bin as string, ['check', '--model', model, '--timeout', '60', file], { encoding: 'utf8', timeout: 120_000 });
        assert.equal(r.status, want, `${name} under ${model}: exit ${r.status}\n${r.stdout}${r.stderr}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
