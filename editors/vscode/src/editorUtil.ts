// Small helpers the extension's views share: one spelling of a uri and protocol ranges.

import * as vscode from 'vscode';

/** One spelling per uri, whether it came from the server or from VS Code. */
export function normUri(uri: string): string {
  try {
    return vscode.Uri.parse(uri, true).toString();
  } catch {
    return uri;
  }
}

export function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
