#!/usr/bin/env python3
"""check_man_settings.py — the man page documents every HOTPATH_* variable the code reads, and
names none it does not.

What the code reads: every HOTPATH_* name inside a string literal of the library's and the
console's C sources (core/, views/, report/, process/, console/; comments left out, so a variable
only mentioned in a comment does not count) and every one on a non-comment line of
hotpath-run.sh. Settings are read only through such literals (core/config.c, HP_IMAGE_VAR
in core/child_env.h, the console's getenv calls), so this finds them all.

What the man page documents: a name in an item heading of its own (a `.B` or `.BR` line, as under
ENVIRONMENT and its Internal subsection). A name it mentions anywhere must be one the code reads.

Usage: tests/check_man_settings.py [--man PATH]   (default: hotpath-run.1 at the top of the tree)
Exit 0 when both hold, else 1 with one line per missing or unknown variable. Stdlib only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ("core", "views", "report", "process", "console")
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


def code_names(root=ROOT):
    """{name: [files that read it]} for every HOTPATH_* variable the code reads."""
    where = {}
    for d in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXTS):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n in names_in_c(fh.read()):
                        where.setdefault(n, []).append(os.path.relpath(path, root))
    launcher = os.path.join(root, "hotpath-run.sh")
    with open(launcher, encoding="utf-8") as fh:
        for n in names_in_shell(fh.read()):
            where.setdefault(n, []).append("hotpath-run.sh")
    return where


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
    if not code:
        out.append("no HOTPATH_* variable found in the sources: the extraction is broken")
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
