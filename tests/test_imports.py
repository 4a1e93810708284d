"""The layers of ARCHITECTURE.md are a one-way street: no two modules of
the package import each other, directly or round about, and no module
imports another's underscore names. Read from the sources (every import,
at the top or inside a function), so the next circle fails the suite."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "hrf"


def modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def imports() -> dict[str, set[tuple[str, str]]]:
    """module -> {(module it imports, name imported or "")}; `from P import
    N` where P.N is a module is an import of P.N, else of P (a name of its)."""
    mods = modules()
    out: dict[str, set[tuple[str, str]]] = {m: set() for m in mods}
    for m, p in mods.items():
        package = m.split(".") if p.name == "__init__.py" else m.split(".")[:-1]
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if sub in mods:
                        out[m].add((sub, ""))
                    elif target in mods and a.name != "_core":  # the compiled core is no module here
                        out[m].add((target, a.name))
            elif isinstance(node, ast.Import):
                out[m].update((a.name, "") for a in node.names if a.name in mods)
    return out


def test_no_import_circles():
    graph = {m: {t for t, _ in ts if t != m} for m, ts in imports().items()}
    seen: dict[str, int] = {}  # 1: on the path, 2: done
    circles = []

    def visit(m, path):
        seen[m] = 1
        for t in sorted(graph[m]):
            if seen.get(t) == 1:
                circles.append(path[path.index(t) :] + [t])
            elif t not in seen:
                visit(t, [*path, t])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [m])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_no_module_imports_another_modules_underscore_names():
    private = sorted(
        f"{m} imports {name} from {t}"
        for m, ts in imports().items()
        for t, name in ts
        if name.startswith("_") and not name.startswith("__") and t != m
    )
    assert not private, private
