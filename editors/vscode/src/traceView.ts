// The trace view (issue 31): one webview panel, reused, showing a counterexample's or witness's
// steps per thread and its graph (the page is built by `logic/trace.ts`); the source line of
// the step under the pointer is highlighted in the editor. When the file changes the panel says
// it is out of date, and it asks for the same trace again once the file is verified.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { normUri, toRange } from './editorUtil';
import { VERIFY } from './logic/schedule';
import { parseTrace, TRACE_REQUEST, TraceReply, traceHtml, traceView } from './logic/trace';

export interface TraceTarget {
  uri?: string;
  model?: string;
  index?: number;
  position?: { line: number; character: number };
}

/** What the trace view needs from the extension. */
export interface TraceHost {
  client(): LanguageClient | undefined;
  /** Explains why no server runs. */
  showStartError(): Promise<void>;
  /** The active litmus editor's uri and cursor, if any. */
  activeTarget(): { uri: string; position: { line: number; character: number } } | undefined;
}

/** `litmus.showTrace` arguments: `[uri, model, index]` (hover links) or one object; none from the palette. */
export function traceArgs(args: unknown[]): TraceTarget {
  const [a, b, c] = args;
  if (typeof a === 'object' && a !== null && !(a instanceof vscode.Uri)) return a as TraceTarget;
  return {
    uri: a === undefined ? undefined : String(a),
    model: typeof b === 'string' ? b : undefined,
    index: typeof c === 'number' ? c : undefined,
  };
}

export class TraceView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private shown: TraceReply | undefined;
  /** The file changed since the shown trace was made (its lines may have moved). */
  private stale = false;
  /** How many pages were rendered: tells the webview's saved state of one page from the next. */
  private renders = 0;
  private readonly line: vscode.TextEditorDecorationType;

  constructor(private readonly host: TraceHost) {
    this.line = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
      borderColor: new vscode.ThemeColor('editor.rangeHighlightBorder'),
      borderStyle: 'solid',
      borderWidth: '1px',
      isWholeLine: true,
    });
  }

  dispose(): void {
    this.line.dispose();
    this.panel?.dispose();
  }

  /** The document `uri` was edited: the shown trace of it is out of date. */
  edited(uri: string): void {
    if (!this.shown || normUri(uri) !== this.shown.uri || this.stale) return;
    this.stale = true;
    this.clearLine();
    void this.panel?.webview.postMessage({
      type: 'stale',
      text: 'Out of date: the file changed since this trace was made, so its steps and lines may not be the file\'s. It is redone when the file is verified again (save, or Re-run check).',
    });
  }

  /** The document `uri` was verified: an out-of-date trace of it is asked for again. */
  verified(uri: string): void {
    if (this.stale && this.shown && normUri(uri) === this.shown.uri) void this.refresh();
  }

  /** Asks the server for a trace and shows it. */
  async show(target: TraceTarget): Promise<void> {
    const client = this.host.client();
    if (!client) {
      await this.host.showStartError();
      return;
    }
    const active = this.host.activeTarget();
    const uri = target.uri ?? active?.uri;
    if (!uri) {
      void vscode.window.showInformationMessage('Litmus: open a .litmus file first.');
      return;
    }
    const position = target.position ?? (target.uri === undefined || target.uri === active?.uri ? active?.position : undefined);
    let raw: unknown;
    try {
      raw = await client.sendRequest(TRACE_REQUEST, {
        uri,
        model: target.model,
        violation: target.index,
        position: target.index === undefined ? position : undefined,
      });
    } catch (err) {
      void vscode.window.showWarningMessage(`Litmus: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const t = parseTrace(raw);
    if (!t) {
      void vscode.window.showInformationMessage('Litmus: no counterexample or witness to trace here.');
      return;
    }
    t.uri = normUri(t.uri || uri);
    this.render(t);
  }

  /** Asks again for the shown trace (same model and counterexample) after the file changed. */
  private async refresh(): Promise<void> {
    const old = this.shown;
    const client = this.host.client();
    if (!client || !old) return;
    let raw: unknown;
    try {
      raw = await client.sendRequest(TRACE_REQUEST, { uri: old.uri, model: old.model, violation: old.index });
    } catch {
      raw = null;
    }
    const t = parseTrace(raw);
    if (this.shown !== old) return; // another trace was opened meanwhile
    if (!t) {
      void this.panel?.webview.postMessage({
        type: 'stale',
        text: `Out of date: ${old.model.toUpperCase()} has no such counterexample any more (the file was verified again). Open a verdict lens for the current results.`,
      });
      return;
    }
    t.uri = normUri(t.uri || old.uri);
    this.render(t);
  }

  private render(t: TraceReply): void {
    this.stale = false;
    if (!this.panel) {
      const panel = vscode.window.createWebviewPanel(
        'litmus.trace',
        'Litmus trace',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, localResourceRoots: [] },
      );
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.shown = undefined;
        this.clearLine();
      });
      panel.webview.onDidReceiveMessage((msg: { type?: string; step?: number; model?: string; index?: number }) => {
        if (msg.type === 'step' && typeof msg.step === 'number') this.highlightStep(msg.step);
        else if (msg.type === 'rerun' && this.shown) void vscode.commands.executeCommand(VERIFY, this.shown.uri);
        else if (msg.type === 'select' && this.shown) void this.show({ uri: this.shown.uri, model: msg.model, index: msg.index ?? 0 });
      });
      this.panel = panel;
    }
    this.shown = t;
    this.panel.title = `Trace: ${t.test} (${t.model.toUpperCase()})`;
    this.panel.webview.html = traceHtml(traceView(t), t.graph, {
      cspSource: this.panel.webview.cspSource,
      nonce: crypto.randomBytes(16).toString('base64'),
      render: String(++this.renders),
    });
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  private clearLine(): void {
    for (const ed of vscode.window.visibleTextEditors) ed.setDecorations(this.line, []);
  }

  /** Highlights the source line of step `step` (0 = the initial state: nothing) in the editor. */
  private highlightStep(step: number): void {
    const t = this.shown;
    // A stale trace's lines may have moved: no highlight until it is redone.
    if (!t || this.stale) return;
    const editors = vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === t.uri);
    const row = step > 0 ? t.rows[step - 1] : undefined;
    for (const ed of editors) {
      if (!row?.range) {
        ed.setDecorations(this.line, []);
        continue;
      }
      const r = toRange(row.range);
      ed.setDecorations(this.line, [r]);
      ed.revealRange(r, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }
}
