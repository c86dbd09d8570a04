#!/usr/bin/env python3
"""check_man_settings.py — the man page documents every HOTPATH_* setting, and names none that
does not exist.

The settings: the library reads its HOTPATH_* variables only through the settings tables
(core/settings.h): the rows `{ "HOTPATH_NAME", HP_SETTING_KIND, ...` of core/config.c, of each
view's views/NAME/NAME_settings.c and of report/report_settings.c. Besides those: the internal
HP_IMAGE_VAR (core/child_env.h), the names in the console's and the launcher's C strings (the
console's getenv calls, the launcher's HOTPATH_RUN_DIR), and hotpath-run.sh. A `getenv` of a
HOTPATH_* literal in the library outside the tables is a problem of its own (a setting that
bypasses the table), and so is a HOTPATH_* name in a message of the library that no table has.

What the man page documents: a name in an item heading of its own (a `.B` or `.BR` line, as under
ENVIRONMENT and its Internal subsection). A name it mentions anywhere must be a setting.

Usage: tests/check_man_settings.py [--man PATH]   (default: hotpath-run.1 at the top of the tree)
Exit 0 when both hold, else 1 with one line per missing or unknown variable. Stdlib only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ("core", "views", "report", "process", "console", "launcher")
SOURCE_EXTS = (".c", ".h", ".cc")
NAME = re.compile(r"HOTPATH_[A-Z0-9_]*[A-Z0-9]")
# C tokens that can hold a name: comments (skipped) and string literals (read); character
# literals are matched so that a quote inside one does not start a string.
C_TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def names_in_c(text):
    found = set()
    for m in C_TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith('"'):
            found.update(NAME.findall(tok))
    return found


def names_in_shell(text):
    found = set()
    for line in text.splitlines():
        code = re.sub(r"(^|\s)#.*$", "", line)   # a comment: '#' at the start or after a blank
        found.update(NAME.findall(code))
    return found


TABLE_ROW = re.compile(r'\{\s*"(HOTPATH_[A-Z0-9_]+)",\s*HP_SETTING_([A-Z]+),')
LIBRARY_GETENV = re.compile(r'getenv\(\s*"(HOTPATH_[A-Z0-9_]*)"')


def _sources(root, dirs):
    for d in dirs:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(SOURCE_EXTS):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        yield os.path.relpath(path, root), fh.read()


def _is_table(rel):
    return rel == os.path.join("core", "config.c") or rel.endswith("_settings.c")


def table_rows(root=ROOT):
    """{name: (kind, file)} of every row of the settings tables."""
    rows = {}
    for rel, text in _sources(root, ("core", "views", "report")):
        if _is_table(rel):
            for name, kind in TABLE_ROW.findall(text):
                rows.setdefault(name, (kind, rel))
    return rows


def code_names(root=ROOT):
    """{name: [where]} for every setting: the tables' rows, the internal variable, the console's,
    the launcher's and hotpath-run.sh's."""
    where = {n: [f] for n, (_, f) in table_rows(root).items()}
    for rel, text in _sources(root, ("core", "console", "launcher")):
        if rel.startswith(("console", "launcher")) or rel.endswith("child_env.h"):
            for n in names_in_c(text):
                where.setdefault(n, []).append(rel)
    launcher = os.path.join(root, "hotpath-run.sh")
    with open(launcher, encoding="utf-8") as fh:
        for n in names_in_shell(fh.read()):
            where.setdefault(n, []).append("hotpath-run.sh")
    return where


def library_problems(names, root=ROOT):
    """A setting read around the tables, or a message naming one that does not exist."""
    out = []
    for rel, text in _sources(root, ("core", "views", "report", "process")):
        if _is_table(rel):
            continue
        for n in LIBRARY_GETENV.findall(text):
            out.append("%s reads %s with getenv: a setting belongs in a settings table "
                       "(core/settings.h)" % (rel, n))
        for n in sorted(names_in_c(text) - set(names)):
            out.append("%s names %s, which no settings table has" % (rel, n))
    return out


def man_names(man_text):
    """(documented, mentioned): names with an item heading of their own, and every name named."""
    documented = set()
    for line in man_text.splitlines():
        if line.startswith((".B ", ".BR ")):
            documented.update(NAME.findall(line))
    return documented, set(NAME.findall(man_text))


def problems(root=ROOT, man_path=None):
    """One line per problem; empty when the man page and the code agree."""
    man_path = man_path or os.path.join(root, "hotpath-run.1")
    with open(man_path, encoding="utf-8") as fh:
        documented, mentioned = man_names(fh.read())
    code = code_names(root)
    out = []
    if len(table_rows(root)) < 20:
        out.append("fewer than 20 rows found in the settings tables: the extraction is broken")
    out += library_problems(code, root)
    for n in sorted(set(code) - documented):
        out.append("%s is used by %s but not documented in %s (an item of its own under "
                   "ENVIRONMENT, or its Internal subsection)"
                   % (n, ", ".join(sorted(set(code[n]))[:3]), os.path.basename(man_path)))
    for n in sorted(mentioned - set(code)):
        out.append("%s is named in %s but no source reads it"
                   % (n, os.path.basename(man_path)))
    return out


def main(argv):
    man = None
    if argv[:1] == ["--man"] and len(argv) == 2:
        man = argv[1]
    elif argv:
        print(__doc__.split("\n\n")[-1].splitlines()[0], file=sys.stderr)
        return 2
    found = problems(man_path=man)
    for p in found:
        print("check_man_settings: " + p, file=sys.stderr)
    if found:
        print("check_man_settings: %d problem(s); see hotpath-run.1's ENVIRONMENT section"
              % len(found), file=sys.stderr)
        return 1
    print("check_man_settings: every HOTPATH_* variable the code reads (%d) is in the man page"
          % len(code_names()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
