// Drives code-server (started by run.sh with the litmus extension installed) in headless
// Chromium: opens a test with a TSO bug, waits for the error squiggle and the verdict code
// lens, hovers the assertion, saves a screenshot, then opens the schedule peek and checks the
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

  await check("the server's markdown hover renders its verdict table", async () => {
    // the verdict table is further down the hover, below the diagnostic
    const table = page.locator('.monaco-hover:not(.hidden) table').first();
    await table.waitFor({ state: 'attached', timeout: 10_000 });
    const text = await table.innerText();
    if (!/TSO/.test(text) || !/SC/.test(text)) throw new Error(`table says ${JSON.stringify(text.slice(0, 200))}`);
  });

  await check(`screenshot saved to ${screenshot}`, async () => {
    await page.screenshot({ path: screenshot });
  });

  await check('the Show schedule lens opens a peek list of the steps', async () => {
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
    const link = page.locator('.codelens-decoration a', { hasText: 'Show schedule' }).first();
    await link.waitFor({ timeout: 30_000 });
    await link.click();
    const peek = page.locator('.peekview-widget').first();
    await peek.waitFor({ timeout: 30_000 });
    const rows = peek.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 10_000 });
    const n = await rows.count();
    if (n < 2) throw new Error(`peek list has ${n} rows`);
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

  // The trace view (issue 31): the per-model lens, the webview's table, stepping, the graph.
  const traceFrame = () => page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  await check("the PSO ✗ lens opens PSO's counterexample in the trace view", async () => {
    await page.keyboard.press('Escape');
    // wide enough for the trace view's buffer and memory columns beside the editor
    await page.setViewportSize({ width: 1680, height: 900 });
    const link = page.locator('.codelens-decoration a', { hasText: /^PSO ✗$/ }).first();
    await link.waitFor({ timeout: 30_000 });
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
    // A workspace setting (litmus.serverPath is machine-overridable), as a project would pin it.
    fs.mkdirSync(`${workspace}/.vscode`, { recursive: true });
    fs.writeFileSync(`${workspace}/.vscode/settings.json`, JSON.stringify({ 'litmus.serverPath': '/nonexistent/litmus' }));
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'litmus.serverPath' }).first();
    await toast.waitFor({ timeout: 60_000 });
    const text = await toast.innerText();
    if (!text.includes('/nonexistent/litmus') || !text.includes('cargo build')) throw new Error(`toast says ${JSON.stringify(text)}`);
    await page.locator('.statusbar-item', { hasText: 'litmus: no server' }).first().waitFor({ timeout: 30_000 });
  });
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
