#!/usr/bin/env python3
"""The layering of models/: every #include between its folders goes down.

    scripts/check_layering.py               # exit 1 listing every include that goes up
    scripts/check_layering.py --root DIR    # the tree at DIR (default: this checkout)
    scripts/check_layering.py --self-test   # the checker finds what it must

Each folder of models/ is one library (models/CMakeLists.txt). LAYERS says
which folders each one may include besides itself; the files directly in
models/ (the chip) may include any folder, and no folder may include them.
A folder's subfolders (core/testing) belong to it. A folder missing from
LAYERS is an error too: a new folder must say where it sits. The table
itself must be acyclic, so no cycle can hide in it. ctest runs this
(models_layering), so the layering cannot silently regress.
"""

import argparse
import os
import re
import sys
import tempfile

# Lowest first. base: ids, time, the chip's config, the run's failure;
# testing: the SystemC test fixture; gm: GM's port, caches, bandwidth and
# TLM target; hazard and ffts: the hazard detector and the barriers; core:
# op programs, the cost model and the AICore; aicpu: the runtime's
# decisions and the orchestrator and scheduler modules.
LAYERS = {
    "base": [],
    "testing": ["base"],
    "gm": ["base"],
    "hazard": ["base", "gm"],
    "ffts": ["base"],
    "core": ["base", "testing", "gm"],
    "aicpu": ["base", "testing", "gm", "core"],
}
CHIP = "chip"  # the files directly in models/

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"models/([^"]+)"', re.M)
SOURCES = (".h", ".cc")


def table_errors(layers):
    """Cycles or unknown folders in the table itself."""
    errors = []
    for folder, allowed in layers.items():
        for other in allowed:
            if other not in layers:
                errors.append(f"LAYERS: {folder} may include unknown folder {other}")
    state = {}

    def visit(folder, path):
        if state.get(folder) == "done":
            return
        if state.get(folder) == "open":
            errors.append("LAYERS: cycle " + " -> ".join(path + [folder]))
            return
        state[folder] = "open"
        for other in layers.get(folder, []):
            visit(other, path + [folder])
        state[folder] = "done"

    for folder in layers:
        visit(folder, [])
    return errors


def layer_of(rel):
    """The layer of a path relative to models/ ('core/aicore.h' -> 'core')."""
    parts = rel.split("/")
    return CHIP if len(parts) == 1 else parts[0]


def check(root, layers=LAYERS):
    """Every violation in root/models, as 'file: message' lines."""
    models = os.path.join(root, "models")
    errors = table_errors(layers)
    for name in sorted(os.listdir(models)):
        if os.path.isdir(os.path.join(models, name)) and name not in layers:
            errors.append(f"models/{name}/: a folder scripts/check_layering.py does not place; "
                          "add it to LAYERS")
    for dirpath, _, files in os.walk(models):
        for name in sorted(files):
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, models).replace(os.sep, "/")
            source = layer_of(rel)
            if source not in layers and source != CHIP:
                continue  # reported above
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for match in INCLUDE.finditer(text):
                target = layer_of(match.group(1))
                if target == source or source == CHIP:
                    continue
                line = text.count("\n", 0, match.start()) + 1
                if target == CHIP:
                    errors.append(f"models/{rel}:{line}: includes models/{match.group(1)}, a "
                                  f"chip-level file; {source} sits below the chip")
                elif target not in layers.get(source, []):
                    allowed = ", ".join(layers.get(source, [])) or "nothing"
                    errors.append(f"models/{rel}:{line}: {source} includes {target} "
                                  f"(models/{match.group(1)}); {source} may include {allowed}")
    return errors


def self_test():
    """The checker reports each kind of violation and passes a clean tree."""
    def tree(files):
        root = tempfile.mkdtemp(prefix="layering_")
        for rel, text in files.items():
            path = os.path.join(root, "models", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return root

    layers = {"base": [], "gm": ["base"], "core": ["base", "gm"]}
    clean = {
        "base/ids.h": "",
        "gm/gm_port.h": '#include "models/base/ids.h"\n',
        "core/aicore.h": '#include "models/gm/gm_port.h"\n#include "models/core/x.h"\n',
        "core/testing/fake.h": '#include "models/core/aicore.h"\n',
        "chip.h": '#include "models/core/aicore.h"\n',
    }
    cases = [
        ("a clean tree", clean, []),
        ("an upward include",
         dict(clean, **{"gm/cache.h": '#include "models/core/aicore.h"\n'}),
         ["models/gm/cache.h:1: gm includes core"]),
        ("a subfolder's upward include",
         dict(clean, **{"gm/testing/t.h": '\n  #  include "models/core/aicore.h"\n'}),
         ["models/gm/testing/t.h:2: gm includes core"]),
        ("a chip-level include",
         dict(clean, **{"core/phases.h": '#include "models/chip.h"\n'}),
         ["models/core/phases.h:1: includes models/chip.h, a chip-level file"]),
        ("an unplaced folder", dict(clean, **{"newdir/x.h": ""}),
         ["models/newdir/: a folder scripts/check_layering.py does not place"]),
    ]
    failed = 0
    for what, files, expected in cases:
        found = check(tree(files), layers)
        missing = [e for e in expected if not any(f.startswith(e) for f in found)]
        if missing or len(found) != len(expected):
            print(f"self-test: {what}: expected {expected}, found {found}")
            failed += 1
    cyclic = table_errors({"a": ["b"], "b": ["a"]})
    if not any("cycle" in e for e in cyclic):
        print(f"self-test: a cyclic table: found {cyclic}")
        failed += 1
    print(f"check_layering self-test: {'FAILED' if failed else 'ok'}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the source tree (default: this checkout)")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    errors = check(args.root)
    for error in errors:
        print(error)
    if errors:
        print(f"check_layering: {len(errors)} include(s) break the layering of models/")
        return 1
    print("check_layering: models/ is layered: "
          + ", ".join(f"{f} <- {', '.join(a) or '-'}" for f, a in LAYERS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
