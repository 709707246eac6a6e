// Issue 57, items 2 and 3: the gutter follows every save, and the results view keeps each
// model's numbers and the previous runs. Called from drive.mjs (`resultsChecks(ctx)`;
// `LITMUS_E2E_ONLY=results` runs these checks alone). Writes docs/vscode-results.png.
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const FILE = 'sb-forall.litmus';
// Store buffering as a `forall`: it fails under TSO and PSO (both loads can read 0), holds
// under SC; a fence after each store makes it hold everywhere.
const TEXT = [
  'litmus SBForall "store buffering, as a forall"',
  '',
  'shared x = 0, y = 0;',
  '',
  'thread P0 {',
  '  x = 1;',
  '  r0 = y;',
  '}',
  '',
  'thread P1 {',
  '  y = 1;',
  '  r1 = x;',
  '}',
  '',
  'forall (P0:r0 == 1 || P1:r1 == 1)',
  '',
].join('\n');
const SHOT = fileURLToPath(new URL('../../../../docs/vscode-results.png', import.meta.url));

/** The classes of the Testing glyphs in the active editor's margin. */
async function testGlyphs(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.editor-group-container.active .monaco-editor .margin *, .editor-group-container.active .monaco-editor .glyph-margin-widgets *')]
      .map((e) => String(e.className))
      .filter((c) => /testing-/.test(c)),
  );
}

export async function resultsChecks({ page, check, runCommand, quickOpen, goTo, workspace, LONG }) {
  const lens = (text) => page.locator('.editor-group-container.active .codelens-decoration', { hasText: text }).first();
  await check('issue 57: a check on open marks the gutter with its failure, without running a test', async () => {
    fs.writeFileSync(`${workspace}/${FILE}`, TEXT);
    await quickOpen(FILE, 'litmus SBForall', `${workspace}/${FILE}`);
    await lens('TSO ✗').waitFor({ timeout: LONG });
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.editor-group-container.active .monaco-editor .margin *, .editor-group-container.active .monaco-editor .glyph-margin-widgets *')].some((e) =>
          /testing-(failed|error)/.test(String(e.className)),
        ),
      null,
      { timeout: 60_000 },
    );
  });
  await check('issue 57: after a fixing save the gutter shows the new run: passed, no failure left', async () => {
    // a fence after each store (lines 6 and 11)
    for (const line of [11, 6]) {
      await goTo(`${line}:9`);
      await page.keyboard.press('End');
      await page.keyboard.type('\nfence;');
    }
    await page.keyboard.press('Control+S');
    await lens('TSO ✓').waitFor({ timeout: LONG });
    await page.waitForFunction(
      () => {
        const cs = [...document.querySelectorAll('.editor-group-container.active .monaco-editor .margin *, .editor-group-container.active .monaco-editor .glyph-margin-widgets *')]
          .map((e) => String(e.className))
          .filter((c) => /testing-/.test(c));
        return cs.some((c) => /testing-passed/.test(c)) && !cs.some((c) => /testing-(failed|error)/.test(c));
      },
      null,
      { timeout: 60_000 },
    ).catch(async () => {
      throw new Error(`gutter glyphs: ${JSON.stringify((await testGlyphs(page)).slice(0, 12))}`);
    });
  });
  await check('issue 57: the results view lists each model with its verdict and numbers, and the previous run', async () => {
    await runCommand('Litmus: Show Results');
    const rows = page.locator('.part.panel .monaco-list-row');
    for (const m of ['SC ✓', 'TSO ✓', 'PSO ✓']) {
      const row = rows.filter({ hasText: m }).first();
      await row.waitFor({ timeout: 60_000 });
      const text = await row.innerText();
      if (!/\d[\d,]* executions · \d+ states · [\d.]+ m?s · complete/.test(text)) throw new Error(`${m}'s row says ${JSON.stringify(text)}`);
    }
    const prev = rows.filter({ hasText: /^Previous runs \(\d+\)/ }).first();
    await prev.waitFor({ timeout: 30_000 });
    if ((await prev.getAttribute('aria-expanded')) === 'false') await prev.locator('.monaco-tl-twistie').first().click();
    // the run before the fix, newest first: its summary has TSO's failure
    const older = rows.filter({ hasText: /version \d+.*SC ✓ · TSO ✗ · PSO ✗/ }).first();
    await older.waitFor({ timeout: 30_000 });
    if ((await older.getAttribute('aria-expanded')) === 'false') await older.locator('.monaco-tl-twistie').first().click();
    await rows.filter({ hasText: /^TSO ✗/ }).first().waitFor({ timeout: 30_000 });
    const desc = await page.locator('.part.panel .pane-header', { hasText: 'Results' }).first().innerText();
    if (!desc.includes(FILE)) throw new Error(`the view's header says ${JSON.stringify(desc)}`);
    await page.screenshot({ path: SHOT });
  });
}
