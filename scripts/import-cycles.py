#!/usr/bin/env python3
"""Finds import cycles between the modules of src/.

A module is a file (src/a/b.rs and src/a/b/mod.rs are `a::b`). An edge a -> b is any path
`crate::b…`, `super::…` or `self::…` that a's code (tests excluded) names, resolved to the
longest module that exists. A module using its own ancestor (a panel file using a helper of
`ui`) is not an edge: a module and its submodules are one unit to their parent. Prints every cycle (strongly connected group of more than one module)
and exits 1 if there is one; `--edges` prints the graph too.

    scripts/import-cycles.py [--edges] [src]
"""
import os
import re
import sys


def modules(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            if rel and rel[-1] == "tests":
                continue  # unit tests in a file of their own
            mods[tuple(rel)] = path
    return mods


def code_of(path):
    text = open(path, encoding="utf-8").read()
    # Unit tests are not part of the dependency graph of the program.
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n(\s*#\[[^\n]*\]\s*\n)*\s*(pub )?mod tests\b", text, re.M)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return text


PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*?)\}", re.S)


def resolve(mod, head, rest, mods):
    if head == "crate":
        base = ()
    elif head == "self":
        base = mod
    else:  # super
        base = mod[:-1]
    parts = list(base) + rest
    while parts:
        if tuple(parts) in mods:
            return tuple(parts)
        parts.pop()
    return ()


def edges(src):
    mods = modules(src)
    graph = {m: set() for m in mods}
    for mod, path in mods.items():
        code = code_of(path)
        found = []
        for head, prefix, inner in GROUP.findall(code):
            pre = [p for p in prefix.split("::") if p]
            for item in re.split(r"[,\s]+", inner):
                item = item.strip("{} ")
                if item and item not in ("self",):
                    found.append((head, pre + [p for p in item.split("::") if p]))
            found.append((head, pre))
        for head, rest in PATH.findall(code):
            found.append((head, [p for p in rest.split("::") if p]))
        for head, rest in found:
            target = resolve(mod, head, rest, mods)
            if target != mod and target != () and not is_ancestor(target, mod):
                graph[mod].add(target)
    return graph


def is_ancestor(a, b):
    """A module's parent re-exporting or declaring it is structure, not a dependency."""
    return len(a) < len(b) and b[: len(a)] == a


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
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

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(m):
    return "::".join(m) or "crate"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "src")
    graph = edges(src)
    if "--edges" in sys.argv:
        for m in sorted(graph):
            print(f"{name(m)} -> {', '.join(name(t) for t in sorted(graph[m]))}")
    found = cycles(graph)
    for group in found:
        print("cycle:", " <-> ".join(name(m) for m in group))
    if not found:
        print(f"no import cycle among {len(graph)} modules")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
