// Finding the `litmus` binary named by `litmus.serverPath`. No `vscode` import: the file system
// and environment are passed in, so the search is unit-tested.

import * as path from 'path';

export interface ResolveEnv {
  /** `PATH` of the extension host. */
  pathVar: string;
  /** `PATHEXT` on Windows (`.EXE;.CMD;...`), else undefined. */
  pathExt?: string;
  platform: NodeJS.Platform;
  home: string;
  /** First workspace folder, for `${workspaceFolder}`. */
  workspaceFolder?: string;
  /** True when `p` is an existing executable file. */
  isExecutable: (p: string) => boolean;
}

export type Resolved = { ok: true; path: string } | { ok: false; message: string };

/** Expands a leading `~` and `${workspaceFolder}` / `${userHome}`. */
export function expandPath(raw: string, env: Pick<ResolveEnv, 'home' | 'workspaceFolder'>): string {
  let p = raw.trim();
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) p = env.home + p.slice(1);
  p = p.replace(/\$\{userHome\}/g, env.home);
  if (env.workspaceFolder !== undefined) p = p.replace(/\$\{workspaceFolder\}/g, env.workspaceFolder);
  return p;
}

/**
 * Resolves the setting to an executable: a value with a path separator is a path (relative
 * ones against the workspace folder), a bare name is searched on `PATH`. When nothing is found
 * the message says what was looked for and how to fix it.
 */
export function resolveServerPath(setting: string | undefined, env: ResolveEnv): Resolved {
  const raw = setting && setting.trim() !== '' ? setting : 'litmus';
  const expanded = expandPath(raw, env);
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  const exts =
    env.platform === 'win32'
      ? ['', ...(env.pathExt ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((e) => e !== '')]
      : [''];
  const hasSep = expanded.includes('/') || (env.platform === 'win32' && expanded.includes('\\'));
  const fix =
    'Run “scripts/install” in a clone of litmus (it installs this extension with its server), ' +
    'or build it with “cargo build --release -p litmus” (the binary is target/release/litmus) ' +
    'and set litmus.serverPath to its full path, or put it on PATH.';
  if (hasSep) {
    const abs = p.isAbsolute(expanded)
      ? expanded
      : p.resolve(env.workspaceFolder ?? env.home, expanded);
    for (const e of exts) {
      if (env.isExecutable(abs + e)) return { ok: true, path: abs + e };
    }
    return {
      ok: false,
      message: `Litmus: the language server binary ${abs} (setting litmus.serverPath) does not exist or is not executable. ${fix}`,
    };
  }
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const dir of env.pathVar.split(sep)) {
    if (dir === '') continue;
    for (const e of exts) {
      const candidate = p.join(dir, expanded + e);
      if (env.isExecutable(candidate)) return { ok: true, path: candidate };
    }
  }
  return {
    ok: false,
    message: `Litmus: cannot find the language server binary “${expanded}” on PATH (setting litmus.serverPath). ${fix}`,
  };
}

/** Where a platform-specific `.vsix` puts the server, relative to the extension's folder. */
export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform): string {
  const p = platform === 'win32' ? path.win32 : path.posix;
  return p.join(extensionPath, 'server', platform === 'win32' ? 'litmus.exe' : 'litmus');
}

/**
 * The server to start. A `litmus.serverPath` the user set (in any settings scope) wins; when
 * it is not set, the server bundled in a platform-specific `.vsix` (`server/litmus`, with the
 * Z3 library beside it) when there is one; else `litmus` on PATH.
 */
export function chooseServer(
  setting: { value: string | undefined; explicit: boolean },
  bundled: string | undefined,
  env: ResolveEnv,
): Resolved & { bundled?: boolean } {
  if (!setting.explicit && bundled !== undefined && env.isExecutable(bundled)) {
    return { ok: true, path: bundled, bundled: true };
  }
  return resolveServerPath(setting.value, env);
}
