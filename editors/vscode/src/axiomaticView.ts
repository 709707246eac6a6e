// The axiomatic view (issue 43): `litmus.showAxiomatic [uri]` (the lens and hover link on an
// AArch64 or RISC-V test's condition) asks the server for `litmus/axiomatic` and shows the
// verdict, the forbidding check and cycle or the witness, and the execution graph in one
// webview panel, reused. The page is built by `logic/axgraph.ts`. When the shown file is
// verified again (saved), the panel is redrawn from the new verdict.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { normUri } from './editorUtil';
import { AXIOMATIC_UNDER_REQUEST } from './logic/modelChanges';
import { AXIOMATIC_REQUEST, AxView, axiomaticHtml, OPEN_LOCATION, parseAxView } from './logic/axgraph';

export class AxiomaticView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  /** The document the panel shows. */
  private uri: string | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {}

  dispose(): void {
    this.panel?.dispose();
  }

  async show(arg: unknown): Promise<void> {
    const uri = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.toString() : vscode.window.activeTextEditor?.document.uri.toString();
    if (!this.client() || !uri) {
      void vscode.window.showInformationMessage('Litmus: open an AArch64 or RISC-V test first.');
      return;
    }
    const v = await this.ask(uri);
    if (v === 'failed') return;
    if (!v) {
      void vscode.window.showInformationMessage('Litmus: no axiomatic verdict here yet (save an AArch64 or RISC-V test to check it).');
      return;
    }
    this.render(normUri(uri), v);
  }

  /** `litmus.showAxiomaticUnder [params]`: a changed test's view under the model as it was
   * or as saved (`litmus/axiomaticUnder`, from an entry of `litmus/modelChanges`). Not redrawn
   * when the test is verified again (it is not the test's own verdict). */
  async showUnder(params: unknown): Promise<void> {
    const client = this.client();
    if (!client || typeof params !== 'object' || params === null) return;
    try {
      const v = parseAxView(await client.sendRequest(AXIOMATIC_UNDER_REQUEST, params));
      if (!v) return;
      this.render(normUri(v.uri), v);
      this.uri = undefined;
    } catch (err) {
      void vscode.window.showWarningMessage(`Litmus: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The document `uri` was verified: the panel showing it is redrawn from the new verdict. */
  verified(uri: string): void {
    const shown = this.uri;
    if (!this.panel || !shown || normUri(uri) !== shown) return;
    void this.ask(shown).then((v) => {
      if (!this.panel || this.uri !== shown || v === 'failed') return;
      if (v) this.render(shown, v);
      else this.panel.title = `Execution: out of date (the file has no verdict now)`;
    });
  }

  private async ask(uri: string): Promise<AxView | undefined | 'failed'> {
    const client = this.client();
    if (!client) return 'failed';
    try {
      return parseAxView(await client.sendRequest(AXIOMATIC_REQUEST, { uri }));
    } catch (err) {
      void vscode.window.showWarningMessage(`Litmus: ${err instanceof Error ? err.message : String(err)}`);
      return 'failed';
    }
  }

  /** `litmus.openLocation [uri, range]`: the view's link to the check that forbids the state. */
  static async openLocation(uri: unknown, range: unknown): Promise<void> {
    if (typeof uri !== 'string') return;
    const r = range as { start?: { line?: number; character?: number }; end?: { line?: number; character?: number } } | undefined;
    const pos = (p?: { line?: number; character?: number }) => new vscode.Position(p?.line ?? 0, p?.character ?? 0);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos(r?.start), pos(r?.end ?? r?.start)), viewColumn: vscode.ViewColumn.One });
  }

  private render(uri: string, v: AxView): void {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('litmus.axiomatic', 'Litmus execution', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [], enableCommandUris: [OPEN_LOCATION] });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.uri = undefined;
      });
    }
    this.uri = uri;
    this.panel.title = `Execution: ${v.test} (${v.arch})`;
    this.panel.webview.html = axiomaticHtml(v, { cspSource: this.panel.webview.cspSource, nonce: crypto.randomBytes(16).toString('base64') });
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }
}
