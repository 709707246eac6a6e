#!/usr/bin/env python3
"""Rewrites citations a newcomer cannot follow into ones inside the repository.

- "spec §N" (the original specification, which is not in the repository) becomes a link to
  the matching section of `docs/reference.md`;
- papers cited by their file name (`papers/mcr-tso-pso.txt`, `mcr-static-dependency` §1, ...)
  become author-year links into the bibliography `docs/papers.md`;
- `docs/notes/lsp.md` (which does not exist) becomes `docs/design/lsp.md`;
- a few comments that told the bug history (seeds and stops) state the rule instead.

Only comment lines of source files are touched (every line of a Markdown file), one line for
one line, so that the change merges with other branches. The script is idempotent: run it
again after a merge to fix citations that code added meanwhile.

    python3 scripts/fix-citations.py          # rewrite the files, list what changed
    python3 scripts/fix-citations.py --check  # exit 1 if anything is left to rewrite
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Where to look: tracked files under these paths.
PATHS = ["engine", "lsp", "grammar", "editors", "tests", "scripts", "docs", "README.md",
         "ARCHITECTURE.md"]
EXTENSIONS = (".rs", ".js", ".ts", ".lua", ".py", ".md", ".litmus", ".tpl", ".expected")
SKIP = ("docs/reference.md", "docs/papers.md", "scripts/fix-citations.py")

# Sections of the original specification and the reference's anchors for them.
SPEC = {"1": "native", "2": "models", "3": "results", "4": "x86", "5": "check"}

PAPERS = {
    "mcr-tso-pso": ("Huang and Huang 2016", "huang-huang-2016"),
    "mcr-static-dependency": ("Huang and Huang 2017", "huang-huang-2017"),
    "smc-tso-pso-chronological-traces": ("Abdulla et al. 2015", "abdulla-et-al-2015"),
    "lazy-tso-reachability": ("Bouajjani et al. 2015", "bouajjani-et-al-2015"),
    "sober-store-buffer-safety": ("Burckhardt and Musuvathi 2008", "burckhardt-musuvathi-2008"),
}

# Exact rewrites first (context a general rule cannot see). `{ref:X}` is a link to the
# reference's anchor X and `{paper:K}` one to paper K, written for the file at hand.
LITERAL = [
    ('(spec §1 "Final condition", §3 "condition")', "({ref:condition}, {ref:verdicts})"),
    ("(spec §5's default)", "(the default, {ref:check})"),
    ('(spec §3: "Replaying a reported\n//! schedule must reach the same state")',
     '({ref:schedules}: "every reported\n//! schedule replays")'),
    ("(spec §5 said nothing is checked: changed for\n  catalogue users, as herd7 goes on past "
     "a test it cannot read)",
     "(as herd7 goes on past a test it cannot read;\n  {ref:differences})"),
    ("the rules of spec §2", "the rules of {ref:models}"),
    ("dialect (§1)", "dialect ({ref:native})"),
    ("dialect (§4)", "dialect ({ref:x86})"),
    ('(Bouajjani, Derevenetc, Meyer, "Checking and\n//! enforcing robustness against TSO", the '
     "`lazy-tso-reachability` paper)",
     '({paper:bouajjani-derevenetc-meyer-2013:Bouajjani, Derevenetc and Meyer 2013}, "Checking and\n'
     "//! enforcing robustness against TSO\", reused by {paper:lazy-tso-reachability})"),
    ("`docs/notes/lsp.md`", "`docs/design/lsp.md`"),
    # Bug history in comments: the rule and its reason instead (the log keeps the history).
    ("passes, and the deadlock is never produced (sem's `testgen` seed 207 lost one so).",
     "passes, and the deadlock is never produced."),
    ("thread may need: random seed 8472). Without", "thread may need). Without"),
    ("// Forbidding every later read of the cell in the prefix instead lost states:",
     "// Forbidding every later read of the cell in the prefix instead loses states:"),
    ("// was there before (random tests, seeds 1248 and 1866).",
     "// was there before (`mcr_litmus::an_rmw_*`)."),
    ("(`testgen` seed 10257 diverged so\n    /// with every query to Z3);",
     "(the replay would\n    /// diverge);"),
    ("(a\n    /// committed critical section may need it: random seed 8472)",
     "(a\n    /// committed critical section may need it)"),
    ("Merging into any earlier run, not\n    /// only an ancestor, lost a state (testgen seed 1355, "
     "every query to Z3): that run's\n    /// query for it had been dropped at a point of a run "
     "whose own seed for it then merged\n    /// back into the first.",
     "Merging into any earlier run, not\n    /// only an ancestor, loses states: a run's query "
     "can be\n    /// dropped at a point of a run whose own seed for it then merges\n    /// back "
     "into the first."),
    ("/// chose for the order of independent events no longer decides the seed, nor the order of",
     "/// chose for the order of independent events does not decide the seed, nor the order of"),
    ("maximal causal model, whose committed prefix is no longer than",
     "maximal causal model, whose committed prefix is not longer than"),
    ("/// Merging into any earlier run, not only an ancestor, lost a state of `testgen` seed 1355 "
     "with\n/// every query to Z3 (under Z3's default seed and seeds 1-3): the earlier run's query "
     "for it\n/// was dropped at a point of a run whose own seed for it then merged back into the "
     "earlier run.",
     "/// Merging into any earlier run, not only an ancestor, loses a state of `testgen` program "
     "1355 with\n/// every query to Z3 (under Z3's default seed and seeds 1-3): the earlier run's "
     "query for it\n/// is dropped at a point of a run whose own seed for it then merges back into "
     "the earlier run."),
    ("(the\n/// dependency graph says which steps may, with MCR-S+ on or off), where it used to "
     "keep every\n/// later step of the target's thread out: Z3 and the causal search then called "
     "the state\n/// unreachable, and with every query to Z3 it was missed.",
     "(the\n/// dependency graph says which steps may, with MCR-S+ on or off). Keeping every\n/// "
     "later step of the target's thread out makes Z3 and the causal search call the state\n/// "
     "unreachable, and with every query to Z3 it is missed."),
]

SPEC_RE = re.compile(r"spec §([1-5])(?!\.?\d)")
BARE_RE = re.compile(r"(?<![\w`])§([1-5])(?!\.?\d)")
PAPER_FILE_RE = re.compile(
    r"(?:paper )?`?(?:\.\./shared/)?papers/(" + "|".join(PAPERS) + r")\.txt`?")
PAPER_NAME_RE = re.compile(r"(?:paper )?`(" + "|".join(PAPERS) + r")`")
PAPER_BARE_RE = re.compile(r"\((" + "|".join(PAPERS) + r") §")


def is_markdown(path):
    return path.endswith(".md")


def is_comment(line, path):
    """Whether a line of `path` is a comment (every line of a Markdown file is text)."""
    if is_markdown(path):
        return True
    s = line.lstrip()
    if path.endswith((".rs", ".litmus", ".tpl")):
        return s.startswith("//")
    if path.endswith((".js", ".ts")):
        return s.startswith(("//", "*", "/*"))
    if path.endswith(".lua"):
        return s.startswith("--")
    if path.endswith((".py", ".expected")):
        return s.startswith("#")
    return False


def link(path, target, text):
    """A citation of `target` (a repository path with an anchor) from `path`."""
    if is_markdown(path):
        rel = os.path.relpath(target.split("#")[0], os.path.dirname(path) or ".")
        anchor = target[len(target.split("#")[0]):]
        return "[%s](%s%s)" % (text, rel, anchor)
    if text.startswith("`"):
        return text
    return "[%s](%s)" % (text, target)


def ref(path, anchor):
    target = "docs/reference.md#" + anchor
    if is_markdown(path):
        rel = os.path.relpath("docs/reference.md", os.path.dirname(path) or ".")
        return link(path, target, "`%s#%s`" % (rel.replace("../", ""), anchor))
    return "`%s`" % target


def paper(path, key, text=None):
    if key in PAPERS:
        text, anchor = text or PAPERS[key][0], PAPERS[key][1]
    else:
        anchor = key
    return link(path, "docs/papers.md#" + anchor, text)


def expand(template, path):
    def sub(m):
        kind, arg = m.group(1), m.group(2)
        if kind == "ref":
            return ref(path, arg)
        key, _, text = arg.partition(":")
        return paper(path, key, text or None)
    return re.sub(r"\{(ref|paper):([^}]*)\}", sub, template)


def spec_anchor(n, line):
    """The reference's anchor for spec §n, from what the citing line talks about."""
    low = line.lower()
    if n == "5":
        if "json" in low:
            return "json"
        if "exit" in low:
            return "exit-status"
        if "language server" in low or "litmus lsp" in low:
            return "lsp"
    if n == "3" and ("schedule" in low or "replay" in low):
        return "schedules"
    return SPEC[n]


def fix_line(line, path):
    if not is_comment(line, path):
        return line
    if SPEC_RE.search(line):
        line = SPEC_RE.sub(lambda m: ref(path, spec_anchor(m.group(1), line)), line)
        # A later bare "§4" on a line citing the spec cites it too.
        line = BARE_RE.sub(lambda m: ref(path, spec_anchor(m.group(1), line)), line)
    line = PAPER_FILE_RE.sub(lambda m: paper(path, m.group(1)), line)
    line = PAPER_NAME_RE.sub(lambda m: paper(path, m.group(1)), line)
    line = PAPER_BARE_RE.sub(lambda m: "(" + paper(path, m.group(1)) + " §", line)
    return line


def fix_text(text, path):
    for old, new in LITERAL:
        start = 0
        while True:
            i = text.find(old, start)
            if i < 0:
                break
            # Every line the match touches must be a comment line.
            a = text.rfind("\n", 0, i) + 1
            b = text.find("\n", i + len(old))
            b = len(text) if b < 0 else b
            if all(is_comment(l, path) for l in text[a:b].split("\n")):
                rep = expand(new, path)
                text = text[:i] + rep + text[i + len(old):]
                start = i + len(rep)
            else:
                start = i + len(old)
    return "".join(fix_line(l, path) for l in text.splitlines(keepends=True))


def files():
    out = subprocess.run(["git", "ls-files", "-z", "--"] + PATHS, cwd=ROOT,
                         capture_output=True, check=True).stdout.decode()
    for path in out.split("\0"):
        if path.endswith(EXTENSIONS) and path not in SKIP and "node_modules" not in path:
            yield path


def main():
    check = "--check" in sys.argv[1:]
    changed = []
    for path in files():
        full = os.path.join(ROOT, path)
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        new = fix_text(text, path)
        if new != text:
            if text.count("\n") != new.count("\n"):
                print("%s: a rewrite changed the number of lines; left alone" % path,
                      file=sys.stderr)
                continue
            changed.append(path)
            if not check:
                with open(full, "w", encoding="utf-8") as f:
                    f.write(new)
    for path in changed:
        print(path)
    if check and changed:
        print("citations to rewrite: run scripts/fix-citations.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
