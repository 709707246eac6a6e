// The axiomatic view (issue 43): `litmus.showAxiomatic [uri]` (the lens and hover link on an
// AArch64 or RISC-V test's condition) asks the server for `litmus/axiomatic` and shows the
// verdict, the forbidding check and cycle or the witness, and the execution graph in one
// webview panel, reused. The page is built by `logic/axgraph.ts`.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { AXIOMATIC_REQUEST, axiomaticHtml, parseAxView } from './logic/axgraph';

let panel: vscode.WebviewPanel | undefined;

export async function showAxiomatic(client: LanguageClient | undefined, arg: unknown): Promise<void> {
  const uri = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.toString() : vscode.window.activeTextEditor?.document.uri.toString();
  if (!client || !uri) {
    void vscode.window.showInformationMessage('Litmus: open an AArch64 or RISC-V test first.');
    return;
  }
  let raw: unknown;
  try {
    raw = await client.sendRequest(AXIOMATIC_REQUEST, { uri });
  } catch (err) {
    void vscode.window.showWarningMessage(`Litmus: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const v = parseAxView(raw);
  if (!v) {
    void vscode.window.showInformationMessage('Litmus: no axiomatic verdict here yet (save an AArch64 or RISC-V test to check it).');
    return;
  }
  if (!panel) {
    panel = vscode.window.createWebviewPanel('litmus.axiomatic', 'Litmus execution', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [] });
    panel.onDidDispose(() => (panel = undefined));
  }
  panel.title = `Execution: ${v.test} (${v.arch})`;
  panel.webview.html = axiomaticHtml(v, { cspSource: panel.webview.cspSource, nonce: crypto.randomBytes(16).toString('base64') });
  panel.reveal(vscode.ViewColumn.Beside, true);
}
