#!/usr/bin/python3
"""The repository stands alone: it cites no file it does not hold.

Checks every tracked text file (this one aside) for
  * citations of the project's private notes, which are not published
    (their names below): a rule belongs in the text that needs it, with a
    public source -- an upstream path at a pinned commit, a CANN document, a
    paper;
  * paths that leave the repository (../shared/...);
  * Markdown links to a relative path ([text](path)) that does not exist.

Usage: scripts/check_citations.py --repo DIR     (ctest citations, label unit)
       scripts/check_citations.py --self-test
"""

import argparse
import os
import re
import subprocess
import sys

# The private notes' names, assembled so this file does not cite them itself.
PRIVATE = ["runtime-" + "semantics.md", "frontend-" + "semantics.md", "DESIGN" + ".md",
           "../" + "shared/", "shared/" + "reference", "shared/" + "seeds"]
LINK = re.compile(r"\]\(([^)\s]+)\)")
TEXT_SUFFIXES = (".md", ".cc", ".h", ".py", ".proto", ".yaml", ".txt", ".cmake", ".sh", ".pbtxt")


def problems_in(path, text, exists):
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        for name in PRIVATE:
            if name in line:
                found.append(f"{path}:{number}: cites '{name}', which is not in the repository")
        if path.endswith(".md"):
            prose = re.sub(r"`[^`]*`", "", line)  # code spans hold no links
            for target in LINK.findall(prose):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL or an anchor
                local = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
                if not exists(local):
                    found.append(f"{path}:{number}: links to '{target}', which does not exist")
    return found


def check(repo):
    listed = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True)
    files = listed.stdout.split()
    if listed.returncode != 0:  # not a git checkout: the tree, builds aside
        files = [os.path.relpath(os.path.join(d, f), repo)
                 for d, dirs, names in os.walk(repo)
                 if not os.path.relpath(d, repo).split(os.sep)[0].startswith((".git", "build"))
                 for f in names]
    me = os.path.relpath(os.path.abspath(__file__), repo)
    problems = []
    for path in files:
        if path == me or not path.endswith(TEXT_SUFFIXES) and os.path.basename(path) != (
                "CMakeLists.txt"):
            continue
        try:
            with open(os.path.join(repo, path), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        problems += problems_in(path, text, lambda p: os.path.exists(os.path.join(repo, p)))
    for p in problems:
        print(p)
    print(f"{len(files)} tracked files: {len(problems)} citation(s) of files not in the "
          "repository")
    return 1 if problems else 0


def self_test():
    exists = {"docs/a.md", "README.md"}.__contains__
    text = ("see [a](a.md), [web](https://x.org/y.md), [top](../README.md#s) and [gone](b.md)\n"
            "as " + PRIVATE[0] + " says\n")
    found = problems_in("docs/x.md", text, exists)
    assert len(found) == 2, found
    assert found[0] == "docs/x.md:1: links to 'b.md', which does not exist", found
    assert "docs/x.md:2: cites" in found[1], found
    assert problems_in("sim/x.cc", "// [gone](b.md)\n", exists) == []  # links: Markdown only
    assert problems_in("docs/x.md", "`a.b[c](d)` is code\n", exists) == []
    print("self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.repo:
        parser.error("--repo is required")
    return check(os.path.abspath(args.repo))


if __name__ == "__main__":
    sys.exit(main())
