// Issue 57, item 1: the language server's completion and rename, used from VS Code as a user
// does (Ctrl+Space, F2). Called from drive.mjs (`editingChecks(ctx)`; `LITMUS_E2E_ONLY=editing`
// runs these checks alone).
import * as fs from 'node:fs';

const FILE = 'editing.litmus';
const TEXT = [
  'litmus Editing "completion and rename"',
  '',
  'shared flag = 0, data = 0;',
  '',
  'thread P0 {',
  '  data = 1;',
  '  flag = 1;',
  '}',
  '',
  'thread P1 {',
  '  r0 = flag;',
  '  r1 = data;',
  '  ',
  '}',
  '',
  'exists (P1:r0 == 1 && P1:r1 == 0)',
  '',
].join('\n');

export async function editingChecks({ page, check, quickOpen, goTo, workspace, LONG }) {
  const editorText = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.editor-group-container.active .view-line')].map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n'),
    );
  await check('issue 57: completion in a thread offers its locations and registers', async () => {
    fs.writeFileSync(`${workspace}/${FILE}`, TEXT);
    await quickOpen(FILE, 'litmus Editing', `${workspace}/${FILE}`);
    await page.locator('.editor-group-container.active .codelens-decoration').first().waitFor({ timeout: LONG });
    await goTo('13:3');
    await page.keyboard.type('r2 = fl');
    await page.keyboard.press('Control+Space');
    const widget = page.locator('.editor-widget.suggest-widget .monaco-list-row');
    await widget.filter({ hasText: 'flag' }).first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => [...document.querySelectorAll('.editor-group-container.active .view-line')].some((l) => /r2 = flag/.test(l.textContent.replace(/\u00a0/g, ' '))),
      null,
      { timeout: 10_000 },
    );
    // the statement finished, so the test parses again for the rename below
    await page.keyboard.press('End');
    await page.keyboard.type(';');
  });
  await check('issue 57: rename (F2) of a register renames its uses and the condition\'s P1:r0', async () => {
    await goTo('11:3');
    await page.keyboard.press('F2');
    const box = page.locator('.rename-box input, .rename-box textarea').first();
    await box.waitFor({ timeout: 20_000 });
    // the box opens with the old name selected: typing replaces it
    await box.fill('seen');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => {
        const t = [...document.querySelectorAll('.editor-group-container.active .view-line')].map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n');
        return /seen = flag/.test(t) && /P1:seen == 1/.test(t);
      },
      null,
      { timeout: 20_000 },
    ).catch(async () => {
      throw new Error(`after rename: ${JSON.stringify(await editorText())}`);
    });
    await page.keyboard.press('Control+S');
  });
}
