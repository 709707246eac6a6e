// Drives code-server (started by run.sh with the litmus extension installed) in headless
// Chromium: opens a test with a TSO bug, waits for the error squiggle and the verdict code
// lens, hovers the assertion, saves a screenshot, then opens the ordered step list and checks the
// status bar; opens PSO's trace view from its lens, steps through it and checks its graph.
// Prints one line per check and `N passed, N failed` last.
import * as fs from 'node:fs';
import { chromium } from 'playwright-core';

const url = process.env.CODE_SERVER_URL;
const workspace = process.env.WORKSPACE;
const screenshot = process.env.SCREENSHOT;
const peekShot = process.env.SCREENSHOT_PEEK;
const FILE = 'peterson.litmus';
const LONG = 180_000;

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (err) {
    failed++;
    if (process.env.FAILSHOT_DIR) await page.screenshot({ path: `${process.env.FAILSHOT_DIR}/fail-${failed}.png` }).catch(() => {});
    console.log(`FAIL ${name}\n     ${String(err && err.message ? err.message : err).split('\n')[0]}`);
  }
}

// --- Issue 32: "Verify All Files" in the Testing view; issue 30: the fence quick fix -------------
// Run before the missing-binary check below, which leaves the workspace without a server.

async function runCommand(title) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ timeout: 30_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title.replace(/^Litmus: /, '') }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
}

async function quickOpen(name, firstLine) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ timeout: 30_000 });
  await input.fill(name);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator('.monaco-editor .view-lines', { hasText: firstLine }).first().waitFor({ timeout: LONG });
}

/** Moves the cursor of the active editor to `line:col` (quick open's `:` mode). */
async function goTo(lineCol) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ timeout: 30_000 });
  await input.fill(`:${lineCol}`);
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  await page.locator('.statusbar-item', { hasText: `Ln ${lineCol.split(':')[0]},` }).first().waitFor({ timeout: 30_000 });
}

function litmusFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? litmusFiles(`${dir}/${e.name}`) : e.name.endsWith('.litmus') ? [`${dir}/${e.name}`] : [],
  );
}

async function verifyAllChecks() {
  await check('Litmus: Verify All Files checks every file and reports in the Testing view', async () => {
    const n = litmusFiles(workspace).length;
    await runCommand('Litmus: Verify All Files');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /Litmus: verified \d+ files/ }).first();
    await toast.waitFor({ timeout: LONG });
    const text = await toast.innerText();
    const m = /verified (\d+) files, (\d+) with a failure/.exec(text);
    if (!m || Number(m[1]) !== n) throw new Error(`toast says ${JSON.stringify(text)}, expected ${n} files`);
    // dekker, peterson, racy-counter and lock-order fail in some model; the rest pass
    if (Number(m[2]) !== 4) throw new Error(`toast says ${JSON.stringify(text)}, expected 4 failing files`);
    const view = page.locator('.test-explorer').first();
    await view.waitFor({ timeout: 30_000 });
    await view.locator('.monaco-list-row', { hasText: 'dekker.litmus' }).first().waitFor({ timeout: 30_000 });
    await view.locator('.codicon-testing-failed-icon').first().waitFor({ timeout: 30_000 });
    await view.locator('.codicon-testing-passed-icon').first().waitFor({ timeout: 30_000 });
  });

  await check('a failing test item shows the schedule, and the gutter marks the assertion', async () => {
    await page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear').first().click().catch(() => {});
    const rows = page.locator('.test-explorer .monaco-list-row');
    // expand examples/dekker.litmus and its first assertion in the Testing view (labels carry
    // the line, so dekker-fenced's assertions do not match)
    for (const label of [/^examples\/dekker\.litmus/, /^assert\(r0 == 0\) \(line 37\)/]) {
      const row = rows.filter({ hasText: label }).first();
      await row.waitFor({ timeout: 30_000 });
      if ((await row.getAttribute('aria-expanded')) === 'false') {
        await row.locator('.monaco-tl-twistie').first().click();
      }
    }
    await rows.filter({ hasText: /^TSO/ }).first().waitFor({ timeout: 30_000 });
    // run the tests at the failing assertion from the editor: the failure shows at the line and
    // in the Test Results panel, whose TSO entry shows the whole message with the schedule
    await quickOpen('dekker.litmus', 'litmus Dekker');
    await goTo('37:4');
    await runCommand('Test: Run Test at Cursor');
    const result = page.locator('.monaco-list-row', { hasText: /TSO assertion violation/ }).first();
    await result.waitFor({ timeout: LONG });
    await result.click();
    // (the message is shown in an editor, which renders spaces as no-break spaces)
    await page.waitForFunction(() => /Schedule\s\(\d+\ssteps\):\s+1\.\sP\d/.test(document.body.innerText), null, { timeout: 30_000 });
    if (process.env.SCREENSHOT_TESTS) await page.screenshot({ path: process.env.SCREENSHOT_TESTS });
    // the gutter: a failed-test glyph in the editor's margin
    const glyphs = await page.evaluate(() =>
      [...document.querySelectorAll('.monaco-editor .margin *, .monaco-editor .glyph-margin-widgets *')]
        .map((e) => String(e.className))
        .filter((c) => /testing/.test(c)),
    );
    if (!glyphs.some((c) => /testing-(failed|error)/.test(c))) throw new Error(`no failed-test glyph in the margin: ${JSON.stringify(glyphs.slice(0, 10))}`);
    await page.keyboard.press('Escape');
  });
}

async function followChecks() {
  await check('test items follow new files, edits and deletions', async () => {
    await page.keyboard.press('Escape');
    await runCommand('View: Show Testing');
    const rows = page.locator('.test-explorer .monaco-list-row');
    fs.writeFileSync(`${workspace}/examples/new-test.litmus`, 'litmus New\nshared x;\nthread P0 { x = 1; r0 = x; assert(r0 == 1); }\n');
    const row = rows.filter({ hasText: /^examples\/new-test\.litmus/ }).first();
    await row.waitFor({ timeout: 60_000 });
    if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').first().click();
    await rows.filter({ hasText: /^assert\(r0 == 1\) \(line 3\)/ }).first().waitFor({ timeout: 30_000 });
    // typing a condition (unsaved) adds its item
    await quickOpen('new-test.litmus', 'litmus New');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('exists (x == 1)');
    await rows.filter({ hasText: /^exists \(x == 1\) \(line 4\)/ }).first().waitFor({ timeout: 30_000 });
    // deleting a file on disk removes its item
    fs.unlinkSync(`${workspace}/examples/mp.litmus`);
    await rows.filter({ hasText: /^examples\/mp\.litmus/ }).first().waitFor({ state: 'detached', timeout: 60_000 });
    await page.keyboard.press('Control+S');
  });
}

async function fenceQuickFixChecks() {
  await check('the fence quick fix on Dekker: applied and saved, the TSO violation is gone', async () => {
    await quickOpen('dekker.litmus', 'litmus Dekker');
    await page.locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: LONG });
    await page.locator('.codelens-decoration', { hasText: 'TSO ✗' }).first().waitFor({ timeout: LONG });
    await goTo('37:4'); // inside `assert(r0 == 0)`, which fails under TSO
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: /Insert 2 fences so that TSO behaves as SC/ }).first();
    await fix.waitFor({ timeout: 60_000 });
    if (process.env.SCREENSHOT_QUICKFIX) await page.screenshot({ path: process.env.SCREENSHOT_QUICKFIX });
    await fix.click();
    await page.keyboard.press('Control+S');
    await page.locator('.codelens-decoration', { hasText: 'TSO ✓' }).first().waitFor({ timeout: LONG });
    const text = fs.readFileSync(`${workspace}/examples/dekker.litmus`, 'utf8');
    const fences = (text.match(/^\s*fence;/gm) || []).length;
    if (fences !== 2) throw new Error(`the saved file has ${fences} fences`);
    if ((await page.locator('.monaco-editor .squiggly-error').count()) !== 0) throw new Error('an error squiggle is left');
  });
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });

try {
  await check('code-server loads the workbench', async () => {
    await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`, { timeout: LONG });
    await page.waitForSelector('.monaco-workbench', { timeout: LONG });
  });

  await check(`${FILE} opens as a litmus file`, async () => {
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: FILE });
    await row.first().waitFor({ timeout: LONG });
    await row.first().click();
    await page.locator('.monaco-editor .view-lines', { hasText: 'litmus Peterson' }).first().waitFor({ timeout: LONG });
    // the language mode in the status bar
    await page.locator('.statusbar-item', { hasText: /^Litmus$/ }).first().waitFor({ timeout: 30_000 });
  });

  await check('the TextMate grammar colours keywords', async () => {
    // Tokenization is asynchronous: poll until `shared` and the name after it differ in colour.
    let tokens = [];
    for (let i = 0; i < 60; i++) {
      tokens = await page.evaluate(() => {
        const line = [...document.querySelectorAll('.view-line')].find((l) => l.textContent.replace(/\s/g, ' ').startsWith('shared flag0'));
        if (!line) return [];
        return [...line.querySelectorAll('span > span')].map((s) => [s.textContent, getComputedStyle(s).color]);
      });
      const shared = tokens.find(([t]) => t.trim() === 'shared');
      const name = tokens.find(([t]) => t.includes('flag0'));
      if (shared && name && shared[1] !== name[1]) return;
      await page.waitForTimeout(500);
    }
    throw new Error(`'shared' is not coloured apart from the rest: ${JSON.stringify(tokens)}`);
  });

  await check('the server reports the violation as an error squiggle', async () => {
    await page.locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: LONG });
  });

  await check('the verdict code lens shows TSO failing', async () => {
    const lens = page.locator('.codelens-decoration', { hasText: 'TSO' }).first();
    await lens.waitFor({ timeout: LONG });
    const text = await lens.innerText();
    if (!text.includes('TSO ✗')) throw new Error(`lens says ${JSON.stringify(text)}`);
  });

  await check('the status bar item shows the verdicts', async () => {
    await page.locator('.statusbar-item', { hasText: 'TSO ✗' }).first().waitFor({ timeout: 60_000 });
  });

  await check('hovering the assertion shows the server hover', async () => {
    const token = page.locator('.view-line span', { hasText: /^assert$/ }).first();
    await token.waitFor({ timeout: 30_000 });
    for (let i = 0; i < 5; i++) {
      await page.mouse.move(0, 0);
      await token.hover();
      try {
        await page.locator('.monaco-hover:not(.hidden)').first().waitFor({ state: 'visible', timeout: 5_000 });
        break;
      } catch {
        /* try again: the hover needs the mouse to rest */
      }
    }
    const hover = page.locator('.monaco-hover:not(.hidden)').first();
    await hover.waitFor({ state: 'visible', timeout: 10_000 });
    const text = await hover.innerText();
    if (!/TSO|assert|schedule|violat/i.test(text)) throw new Error(`hover says ${JSON.stringify(text.slice(0, 200))}`);
  });

  await check("the server's hover is short: verdicts, a trace link, one line per model, the legend", async () => {
    // issue 44: no schedule table (it is in the diagnostic and the trace view), no tables at all
    const hover = page.locator('.monaco-hover:not(.hidden)').first();
    const text = await hover.innerText();
    if (!/Trace under TSO/.test(text)) throw new Error(`no trace link: ${JSON.stringify(text.slice(0, 200))}`);
    if (!/✓ holds · ✗ fails/.test(text)) throw new Error(`no legend: ${JSON.stringify(text.slice(0, 200))}`);
    if (!/engine /.test(text)) throw new Error(`no engine named: ${JSON.stringify(text.slice(0, 200))}`);
    if ((await page.locator('.monaco-hover:not(.hidden) table').count()) > 0) throw new Error('the hover has a table');
  });

  await check(`screenshot saved to ${screenshot}`, async () => {
    await page.screenshot({ path: screenshot });
  });

  await check('the Show schedule lens opens the steps in schedule order, one row each', async () => {
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
    const link = page.locator('.codelens-decoration a', { hasText: 'Show schedule' }).first();
    await link.waitFor({ timeout: 30_000 });
    await link.click();
    const first = page.locator('.quick-input-widget .monaco-list-row', { hasText: /^1\. / }).first();
    await first.waitFor({ timeout: 30_000 });
    const labels = await page.locator('.quick-input-widget .monaco-list-row .label-name').allInnerTexts();
    if (labels.length < 2) throw new Error(`step list has ${labels.length} rows`);
    labels.forEach((l, i) => {
      if (!l.startsWith(`${i + 1}. `)) throw new Error(`row ${i} is ${JSON.stringify(l)}`);
    });
    const title = await page.locator('.quick-input-widget .quick-input-title').first().innerText();
    if ((title.match(/steps\)/g) ?? []).length !== 1) throw new Error(`title says ${JSON.stringify(title)}`);
  });

  await check('the schedule steps are written next to their lines', async () => {
    // the inline annotations are `after` decorations: CSS ::after content on a span
    const found = await page.evaluate(() => {
      for (const el of document.querySelectorAll('.view-line span')) {
        const c = getComputedStyle(el, '::after').content;
        if (c && /1\. /.test(c)) return c;
      }
      return null;
    });
    if (!found) throw new Error('no step annotation found');
    if (peekShot) await page.screenshot({ path: peekShot });
  });

  await check('Step Through Schedule lists every step in schedule order', async () => {
    await page.keyboard.press('Escape');
    await page.locator('.view-line', { hasText: 'assert(r1' }).first().click();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ timeout: 30_000 });
    await input.fill('>Litmus: Step Through Schedule');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Step Through Schedule' }).first().waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    const first = page.locator('.quick-input-widget .monaco-list-row', { hasText: /^1\. / }).first();
    await first.waitFor({ timeout: 30_000 });
    const labels = await page.locator('.quick-input-widget .monaco-list-row .label-name').allInnerTexts();
    const numbers = labels.map((l) => Number(l.split('.')[0]));
    if (numbers.length < 4 || numbers.some((n, i) => n !== i + 1)) throw new Error(`rows: ${JSON.stringify(labels)}`);
    await page.keyboard.press('Escape');
  });

  await verifyAllChecks();
  await fenceQuickFixChecks();
  await followChecks();
  // The trace view (issue 31): the per-model lens, the webview's table, stepping, the graph.
  const traceFrame = () => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  await check("the PSO ✗ lens opens PSO's counterexample in the trace view", async () => {
    await page.keyboard.press('Escape');
    // wide enough for the trace view's buffer and memory columns beside the editor
    await page.setViewportSize({ width: 1680, height: 900 });
    // the checks above left another file active (the Testing view's files): back to the test's tab
    await page.keyboard.press('Escape');
    await page.locator('.tabs-container .tab', { hasText: FILE }).first().click();
    const link = page.locator('.codelens-decoration a', { hasText: /^PSO ✗$/ }).first();
    await link.waitFor({ timeout: 60_000 });
    await link.click();
    const heading = traceFrame().locator('h1');
    await heading.waitFor({ timeout: 60_000 });
    const text = await heading.innerText();
    if (!/under PSO/.test(text)) throw new Error(`trace view heading ${JSON.stringify(text)}`);
    const rows = await traceFrame().locator('tr.step').count();
    if (rows < 5) throw new Error(`${rows} rows`);
    const model = await traceFrame().locator('#model').inputValue();
    if (model !== 'pso') throw new Error(`model selector says ${model}`);
  });

  await check('stepping with the keyboard moves the current step and highlights its line', async () => {
    const frame = traceFrame();
    await frame.locator('tr.step.current').first().focus();
    for (let i = 0; i < 3; i++) await frame.locator('tr.step.current').first().press('ArrowDown');
    const cur = await frame.locator('tr.step.current th').first().innerText();
    if (cur.trim() !== '3') throw new Error(`current step ${JSON.stringify(cur)}`);
    const status = await frame.locator('#status').innerText();
    if (!status.startsWith('3. ')) throw new Error(`status ${JSON.stringify(status)}`);
    // the step's source line carries the trace decoration (a whole-line range highlight)
    await page.waitForFunction(() => [...document.querySelectorAll('.view-overlays div')].some((d) => /\bced-/.test(d.className)), null, { timeout: 10_000 });
  });

  await check('the execution graph renders as SVG with rf and fr edges', async () => {
    const frame = traceFrame();
    const nodes = await frame.locator('svg g.node').count();
    const rf = await frame.locator('svg g.edge[data-kind="rf"]').count();
    const fr = await frame.locator('svg g.edge[data-kind="fr"]').count();
    if (nodes < 4 || rf < 1 || fr < 1) throw new Error(`${nodes} nodes, ${rf} rf, ${fr} fr`);
    if (process.env.SCREENSHOT_TRACE) await page.screenshot({ path: process.env.SCREENSHOT_TRACE });
    await frame.locator('svg').first().scrollIntoViewIfNeeded();
    if (process.env.SCREENSHOT_GRAPH) await page.screenshot({ path: process.env.SCREENSHOT_GRAPH });
  });

  await check('the model selector switches to TSO', async () => {
    await traceFrame().locator('#model').selectOption('tso');
    await page.waitForTimeout(500);
    await traceFrame().locator('h1', { hasText: 'under TSO' }).waitFor({ timeout: 30_000 });
  });

  await check('a missing server binary is reported once, naming the setting', async () => {
    await page.keyboard.press('Escape');
    // A workspace setting, as a project would pin it.
    fs.mkdirSync(`${workspace}/.vscode`, { recursive: true });
    fs.writeFileSync(`${workspace}/.vscode/settings.json`, JSON.stringify({ 'litmus.serverPath': '/nonexistent/litmus' }));
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'litmus.serverPath' }).first();
    await toast.waitFor({ timeout: 60_000 });
    const text = await toast.innerText();
    if (!text.includes('/nonexistent/litmus') || !text.includes('cargo build')) throw new Error(`toast says ${JSON.stringify(text)}`);
    await page.locator('.statusbar-item', { hasText: 'litmus: no server' }).first().waitFor({ timeout: 30_000 });
  });

  await check("the error's Open Settings shows litmus.serverPath on the tab it opens", async () => {
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'litmus.serverPath' }).first();
    await toast.locator('.monaco-button', { hasText: 'Open Settings' }).first().click();
    // a machine-scoped setting was hidden here ("No Settings Found" on code-server's User tab)
    await page.locator('.settings-editor .setting-item', { hasText: 'Server Path' }).first().waitFor({ timeout: 30_000 });
  });

  await check('removing the workspace serverPath restarts the (bundled) server', async () => {
    fs.writeFileSync(`${workspace}/.vscode/settings.json`, '{}');
    // close the Settings editor (a modal in code-server; Escape once clears its search box)
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.locator('.tabs-container .tab', { hasText: FILE }).first().click();
    await page.locator('.statusbar-item', { hasText: 'TSO ✗' }).first().waitFor({ timeout: 60_000 });
  });
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
