"""The import graph of the package: no cycles, no private names taken from another module, and
imports inside functions only for optional dependencies (never for fhe_hw's own modules)."""

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fhe_hw"


def _modules():
    """{dotted name: (path, is package)} for every module of fhe_hw, boards and asic included
    (they are links inside the package)."""
    out = {}
    paths = sorted(Path(folder, name) for folder, _, names in os.walk(PACKAGE, followlinks=True)
                   for name in names if name.endswith(".py"))
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            out[".".join(parts[:-1])] = (path, True)
        else:
            out[".".join(parts)] = (path, False)
    return out


MODULES = _modules()


def _targets(module, is_package, node):
    """The fhe_hw modules (and imported names) one import statement refers to."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level:
        base = base[:len(base) - node.level + 1]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    out = []
    for alias in node.names:
        full = f"{prefix}.{alias.name}"
        out.append((full, None) if full in MODULES else (prefix, alias.name))
    return out


def _own(name):
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports():
    """[(module, line, target module, imported name or None, inside a function)]."""
    found = []
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        local = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local.update(id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import,
                                                                            ast.ImportFrom)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target, name in _targets(module, is_package, node):
                    own = _own(target)
                    if own is not None and own != module:
                        found.append((module, node.lineno, own, name, id(node) in local))
    return found


IMPORTS = _imports()


def test_the_import_graph_has_no_cycles():
    graph = {}
    for module, _, target, _, _ in IMPORTS:
        graph.setdefault(module, set()).add(target)
    state, cycles = {}, []

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(MODULES):
        if node not in state:
            visit(node, [node])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_function_imports_a_module_of_the_package():
    inside = [f"{m}:{line} imports {t}" for m, line, t, _, local in IMPORTS if local]
    assert not inside, "imports inside functions (only optional dependencies may be): " + \
        ", ".join(inside)


def test_no_private_name_is_imported_from_another_module():
    private = [f"{m}:{line} imports {t}.{name}" for m, line, t, name, _ in IMPORTS
               if name is not None and name.startswith("_") and not name.endswith("__")]
    assert not private, ", ".join(private)


@pytest.mark.parametrize("module", ["fhe_hw.cli", "fhe_hw.demo", "fhe_hw.boards", "fhe_hw.asic"])
def test_the_scan_sees_the_package(module):
    assert module in MODULES
