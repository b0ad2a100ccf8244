#!/usr/bin/env python3
"""runtime_layering.py — the runtime's file-level call graph and its circles: which runtime/*.c file calls functions
(or reads tables) another defines, and the strongly connected groups of that graph. DESIGN.md asks for no circle of
more than two files; tests/test_runtime_layering.py holds the runtime to it. Usage: tools/runtime_layering.py [ROOT]"""

import re
import sys
from pathlib import Path


def strip(text):
    """C source without comments and string literals (names inside them are not uses)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def graph(root):
    """{file: sorted files whose midint_* definitions it uses} over runtime/*.c."""
    src = {f.name: strip(f.read_text()) for f in sorted(Path(root, "runtime").glob("*.c"))}
    defs = {}
    for name, text in src.items():
        # external definitions: a non-static function body, or a non-static table
        for m in re.finditer(r"^(?!static)[A-Za-z_][\w \*]*?\b(midint_\w+)\s*\([^;{]*\)\s*\{", text, flags=re.M):
            defs.setdefault(m.group(1), name)
        for m in re.finditer(r"^(?!static)(?:const )?[\w \*]+\b(midint_\w+)\s*(?:\[[^\]]*\])?\s*=", text, flags=re.M):
            defs.setdefault(m.group(1), name)
    return {name: sorted({defs[u] for u in set(re.findall(r"\b(midint_\w+)\b", text)) if defs.get(u, name) != name})
            for name, text in src.items()}


def circles(g):
    """The strongly connected groups of more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in g:
        if v not in index:
            visit(v)
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else Path(__file__).resolve().parent.parent
    g = graph(root)
    for f, deps in g.items():
        print(f"{f:18} -> {' '.join(deps)}")
    found = circles(g)
    for c in found:
        print(f"circle of {len(c)} files: {' '.join(c)}")
    return 1 if any(len(c) > 2 for c in found) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
