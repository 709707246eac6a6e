// Issue 57, problems 5 to 7, in the real workbench (called from drive.mjs with the trace view of
// Peterson's lock open beside it):
// - 7: the graphs' labels, measured from the page (getBoundingClientRect) with every relation
//   and every label shown: no label covers another label, an event or a thread's name, every
//   event's text is inside its box, nothing lies outside the picture, at 1:1 and after Fit; on
//   Peterson's counterexample, the lock-order deadlock and RISC-V's SB with a fence;
// - 6: the contrast of the trace view's and the graph's colours (store buffers, each relation's
//   edges and labels, a deadlock's waits) against the page's background, at least 3:1 (WCAG's
//   bar for graphics), in the Light Modern, Dark Modern, Light 2026, Dark 2026 (code-server's
//   defaults), Dark High Contrast and Light High Contrast themes; screenshots of the
//   high-contrast ones go to docs/;
// - 5: an edit marks the whole trace view out of date: the banner stays in view when scrolled
//   to the graph, the content is dimmed, stepping (buttons, keys, clicks) stops, and Re-run check
//   redraws it;
// - 4: the Settings editor shows Server Path empty and the engine's true description.
import * as fs from 'node:fs';

const docs = new URL('../../../../docs/', import.meta.url);

/** In the page: what is wrong with the open graph's geometry (tolerance: 1px). */
function geometryProblems(svg) {
  const out = [];
  const visible = (el) => {
    for (let e = el; e && e !== svg; e = e.parentElement) if (getComputedStyle(e).display === 'none') return false;
    return true;
  };
  const rect = (el) => el.getBoundingClientRect();
  const name = (el) => `${el.closest('g')?.getAttribute('class') ?? 'text'} "${el.textContent}"`;
  const labels = [...svg.querySelectorAll('g.edge text, g.wait text, text.thread')].filter(visible).map((t) => [name(t), rect(t)]);
  const nodes = [...svg.querySelectorAll('g.node')].map((g) => [g.querySelector('text').textContent, rect(g.querySelector('rect')), rect(g.querySelector('text'))]);
  const pic = rect(svg);
  const over = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const inside = (a, b) => a.left >= b.left - 1 && a.top >= b.top - 1 && a.right <= b.right + 1 && a.bottom <= b.bottom + 1;
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) if (over(labels[i][1], labels[j][1])) out.push(`${labels[i][0]} covers ${labels[j][0]}`);
    for (const [n, r] of nodes) if (over(labels[i][1], r)) out.push(`${labels[i][0]} covers the event "${n}"`);
    if (!inside(labels[i][1], pic)) out.push(`${labels[i][0]} is cut off`);
  }
  for (const [n, r, t] of nodes) {
    if (!inside(t, r)) out.push(`the event "${n}" overflows its box (${Math.round(t.width)}px of text in ${Math.round(r.width)}px)`);
    if (!inside(r, pic)) out.push(`the event "${n}" is cut off`);
  }
  if (labels.length === 0 || nodes.length === 0) out.push(`${labels.length} labels, ${nodes.length} events`);
  return out;
}

/** In the page: the contrast against the background of each coloured thing of the view. */
function contrasts() {
  const parse = (c) => {
    const m = /rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+))?\)/.exec(c);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  };
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bg = parse(getComputedStyle(document.body).backgroundColor);
  const ratio = (c) => {
    const fg = parse(c);
    if (!fg || !bg) return { c, ratio: 0 };
    const a = fg[3];
    const mixed = [0, 1, 2].map((k) => fg[k] * a + bg[k] * (1 - a)); // a translucent colour over the page
    const [l1, l2] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    return { c, ratio: (l1 + 0.05) / (l2 + 0.05) };
  };
  const out = {};
  const buf = document.querySelector('.buf');
  if (buf) out['store buffer text'] = ratio(getComputedStyle(buf).color);
  for (const k of ['po', 'rf', 'co', 'fr', 'rmw', 'wait']) {
    const path = document.querySelector(`svg path.e-${k}:not(marker path)`);
    const text = document.querySelector(`svg text.l-${k}`);
    if (path) out[`${k} edge`] = ratio(getComputedStyle(path).stroke);
    if (text) out[`${k} label`] = ratio(getComputedStyle(text).fill);
  }
  return { background: getComputedStyle(document.body).backgroundColor, out };
}

/**
 * Switches to `theme` through the workspace's settings.json (`workbench.colorTheme`), which VS
 * Code applies as it changes; `null` removes it (back to the user's theme). The theme picker
 * was flaky here: its list is virtual, a theme far down has no row, and a filter typed while
 * it loads is lost.
 */
async function themeBySettings(page, workspace, theme, cls) {
  fs.mkdirSync(`${workspace}/.vscode`, { recursive: true });
  // the setting takes a theme's id, which for the two high-contrast themes is not its label
  const ids = { 'Dark High Contrast': 'Default High Contrast', 'Light High Contrast': 'Default High Contrast Light' };
  const id = ids[theme] ?? theme;
  fs.writeFileSync(`${workspace}/.vscode/settings.json`, JSON.stringify(theme ? { 'workbench.colorTheme': id } : {}));
  await page.locator(cls ? `.monaco-workbench.${cls}` : '.monaco-workbench:not(.hc-black):not(.hc-light)').first().waitFor({ timeout: 30_000 });
}

export async function polishChecks({ page, check, quickOpen, runCommand, traceFrame, workspace, LONG, FILE }) {
  const setTheme = (theme, cls) => themeBySettings(page, workspace, theme, cls);
  const openTso = async () => {
    // one trace view, the last webview of the page (traceFrame): other panels closed
    await runCommand('View: Close All Editors');
    await quickOpen(FILE, 'litmus Peterson');
    const link = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /^TSO ✗$/ }).first();
    await link.waitFor({ timeout: LONG });
    await link.click();
    await traceFrame().locator('h1', { hasText: 'under TSO' }).waitFor({ timeout: 60_000 });
  };
  /** Every relation and every label shown; the geometry at 1:1 and after Fit. */
  const measure = async (what) => {
    const frame = traceFrame();
    await frame.locator('svg g.node').first().waitFor({ timeout: 30_000 });
    for (const c of await frame.locator('input[type=checkbox][data-show]:not(:disabled)').all()) await c.check();
    const problems = [];
    await frame.locator('#zoom-reset').click();
    problems.push(...(await frame.locator('svg').first().evaluate(geometryProblems)).map((p) => `1:1: ${p}`));
    await frame.locator('#zoom-fit').click();
    problems.push(...(await frame.locator('svg').first().evaluate(geometryProblems)).map((p) => `Fit: ${p}`));
    const hidden = await frame.locator('#graph-box').evaluate((b) => b.scrollWidth - b.clientWidth);
    if (hidden > 1) problems.push(`Fit: ${hidden}px of the graph still off to the side`);
    await frame.locator('#zoom-reset').click();
    if (problems.length) throw new Error(`${what}: ${problems.slice(0, 4).join('; ')}${problems.length > 4 ? ` (${problems.length} in all)` : ''}`);
  };

  await check("issue 57, 7: Peterson's graph: no label clipped or covering a label, an event or a name (every relation and label shown)", async () => {
    await page.setViewportSize({ width: 1680, height: 900 });
    await openTso();
    await measure("Peterson's TSO counterexample");
  });

  const themes = [
    ['Light Modern', 'vs', null],
    ['Dark Modern', 'vs-dark', null],
    // this code-server's defaults
    ['Light 2026', 'vs', null],
    ['Dark 2026', 'vs-dark', null],
    ['Dark High Contrast', 'hc-black', 'vscode-graph-hc-dark.png'],
    ['Light High Contrast', 'hc-light', 'vscode-graph-hc-light.png'],
  ];
  for (const [theme, cls, shot] of themes) {
    await check(`issue 57, 6: the trace view's colours have at least 3:1 contrast in ${theme}`, async () => {
      const frame = traceFrame();
      const before = await frame.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
      await setTheme(theme, cls);
      // the webview takes the theme's colours a moment after the workbench
      for (let i = 0; i < 20; i++) {
        const now = await frame.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
        if (now !== before) break;
        await page.waitForTimeout(250);
      }
      await page.waitForTimeout(300);
      const { background, out } = await frame.locator('body').evaluate(contrasts);
      const need = ['store buffer text', 'rf edge', 'co edge', 'fr edge', 'rf label', 'co label', 'fr label'];
      const missing = need.filter((k) => !(k in out));
      if (missing.length) throw new Error(`nothing drawn for ${missing.join(', ')}`);
      const low = Object.entries(out).filter(([, v]) => !(v.ratio >= 3));
      if (low.length) throw new Error(`on ${background}: ${low.map(([k, v]) => `${k} ${v.c} ${v.ratio.toFixed(2)}:1`).join(', ')}`);
      if (shot && process.env.SCREENSHOT) {
        await frame.locator('svg').first().scrollIntoViewIfNeeded();
        await page.mouse.move(0, 0);
        await page.screenshot({ path: new URL(shot, docs).pathname });
      }
    });
  }
  await check("the user's theme again", () => setTheme(null, null));

  await check('issue 57, 7: the deadlock graph: events named as the table names them, both waits inside the picture, nothing covered', async () => {
    await quickOpen('lock-order.litmus', 'litmus LockOrder');
    const link = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /^SC ✗/ }).first();
    await link.waitFor({ timeout: LONG });
    await link.click();
    const frame = traceFrame();
    await frame.locator('h1', { hasText: /deadlock/i }).waitFor({ timeout: 60_000 });
    const events = await frame.locator('svg g.node text').allTextContents();
    if (!events.some((t) => /lock a$/.test(t)) || events.some((t) => /: L[ab]$/.test(t))) throw new Error(`events ${JSON.stringify(events)}`);
    await measure('the lock-order deadlock');
    const { out } = await frame.locator('body').evaluate(contrasts);
    if (!(out['wait edge']?.ratio >= 3 && out['wait label']?.ratio >= 3)) throw new Error(`waits' contrast ${JSON.stringify(out)}`);
  });

  await check("issue 57, 7: RISC-V's graph: the fence's node holds F[Fence.rw.rw], no label on it", async () => {
    const file = 'sb-riscv.litmus';
    if (!fs.existsSync(`${workspace}/${file}`)) fs.copyFileSync(new URL(`../fixtures/${file}`, import.meta.url), `${workspace}/${file}`);
    await quickOpen(file, 'RISCV SB+fence.rw.rw+po');
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /riscv|RISCV/ }).first().waitFor({ timeout: LONG });
    await runCommand('Litmus: Show Axiomatic Execution');
    const frame = traceFrame();
    await frame.locator('h1', { hasText: 'SB+fence.rw.rw+po' }).waitFor({ timeout: 60_000 });
    const fence = await frame.locator('svg g.node', { hasText: 'F[Fence.rw.rw]' }).count();
    if (fence !== 1) throw new Error(`${fence} fence nodes`);
    await measure('SB+fence.rw.rw+po');
  });

  await check('issue 57, 5: an edit marks the whole trace view out of date: a banner in view at the graph, dimmed, no stepping', async () => {
    await openTso();
    const frame = traceFrame();
    // a step chosen before the edit
    await frame.locator('#next').click();
    await frame.locator('#next').click();
    const step = await frame.locator('tr.step.current th').innerText();
    await page.locator('.tabs-container .tab', { hasText: FILE }).first().click();
    await page.locator('.editor-group-container.active .view-line', { hasText: 'litmus Peterson' }).first().click();
    // a new location: another program, whose results the server drops until it is checked (a
    // comment is the same program: its results are kept and the view redone at once)
    const line = fs.readFileSync(`${workspace}/${FILE}`, 'utf8').split('\n').findIndex((l) => l.startsWith('shared '));
    await page.keyboard.press('Control+G');
    await page.keyboard.type(String(line + 1));
    await page.keyboard.press('Enter');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(', extra = 0');
    await frame.locator('#stale').waitFor({ state: 'visible', timeout: 30_000 });
    await frame.locator('svg').first().scrollIntoViewIfNeeded();
    const seen = await frame.locator('body').evaluate((body) => {
      const b = document.getElementById('stale').getBoundingClientRect();
      return {
        scrolled: document.scrollingElement.scrollTop,
        top: b.top,
        bottom: b.bottom,
        height: window.innerHeight,
        stale: body.classList.contains('stale'),
        opacity: Number(getComputedStyle(document.getElementById('content')).opacity),
        next: document.getElementById('next').disabled,
        prev: document.getElementById('prev').disabled,
        text: document.getElementById('stale').innerText,
      };
    });
    if (!(seen.scrolled > 0)) throw new Error(`the view did not scroll to the graph: ${JSON.stringify(seen)}`);
    if (!(seen.top >= 0 && seen.bottom <= seen.height && seen.bottom - seen.top > 10)) throw new Error(`the banner is out of view at the graph: ${JSON.stringify(seen)}`);
    if (!seen.stale || !(seen.opacity < 1) || !seen.next || !seen.prev) throw new Error(`not marked as a whole: ${JSON.stringify(seen)}`);
    if (!/Out of date/.test(seen.text) || !/Re-run check/.test(seen.text)) throw new Error(`banner says ${JSON.stringify(seen.text)}`);
    // neither keys nor clicks step through the old counterexample
    // (dispatched in the view: a key pressed while the editor has the focus would type into
    // the file, which then no longer parses and has no counterexample to redo)
    await frame.locator('body').evaluate(() => document.dispatchEvent(new KeyboardEvent('keydown', { key: 'n', bubbles: true })));
    await frame.locator('tr.step').nth(1).click({ force: true });
    const after = await frame.locator('tr.step.current th').innerText();
    if (after !== step) throw new Error(`stepped from ${step} to ${after} on an out-of-date trace`);
  });

  await check('issue 57, 5: Re-run check in the banner checks the file again and redraws the view', async () => {
    const frame = traceFrame();
    await frame.locator('#rerun').click();
    await frame.locator('#stale').waitFor({ state: 'hidden', timeout: LONG });
    await frame.locator('h1', { hasText: 'under TSO' }).waitFor({ timeout: 30_000 });
    if (await frame.locator('#next').isDisabled()) throw new Error('stepping still disabled after the re-run');
    // the edit undone (the file as on disk), for the checks that follow
    await page.locator('.tabs-container .tab', { hasText: FILE }).first().click();
    // (the focus into the editor's text: from the webview the command palette may not open)
    await page.locator('.editor-group-container.active .view-line').first().click();
    await runCommand('File: Revert File');
  });

  await check("issue 57, 4: the Settings editor shows Server Path empty (its text says unset) and what auto runs", async () => {
    await runCommand('Preferences: Open Settings (UI)');
    await page.locator('.settings-editor').first().waitFor({ timeout: 30_000 });
    // (the search box has the focus; the list is virtual: each setting searched by its id)
    await page.keyboard.type('litmus.serverPath');
    const server = page.locator('.settings-editor .setting-item', { hasText: 'Server Path' }).first();
    await server.waitFor({ timeout: 30_000 });
    const value = await server.locator('input').first().inputValue();
    if (value !== '') throw new Error(`Server Path shows ${JSON.stringify(value)}`);
    if (!/Unset/.test(await server.innerText())) throw new Error('its text does not say what unset means');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('litmus.engine');
    const engine = await page.locator('.settings-editor .setting-item', { hasText: 'deterministic portfolio' }).first().innerText();
    if (!/DPOR and the reference explorer \(and MCR where a thread loops without awaiting, under PSO\)/.test(engine) || /other three/.test(engine)) throw new Error(`Engine says ${JSON.stringify(engine.slice(0, 300))}`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await runCommand('View: Close Editor');
  });
}
