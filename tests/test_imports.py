"""The import graph of the package: layers that point one way, no cycles, no private names taken
from another module, and imports inside functions only for optional dependencies or, in the
command line, for the modules of the command that runs.

The layers, lowest first (:data:`LAYERS`; docs/conventions.md):

hardware
    the units and what they are built from: the families' hardware modules, the golden models,
    params, component, stream, payload, units (the registry), and the shared leaves that import
    nothing above them (cliargs, builddir, tools, debian, markdown); link and boards.
sim
    running units: fhe_hw.sim (Amaranth's simulator, Verilator, Icarus, SAT proofs, the vectors
    registry) and the link's host (a board or its simulation).
flow
    measuring units: fhe_hw.flow (synthesis, bitstreams, exploration, table rows), fhe_hw.asic,
    the software baselines fhe_hw.bench.
scenarios
    the families' configurations, test vectors and co-simulation runs (``configs``, ``vectors``,
    ``cosim``, ``run``, ``host`` of a family package): they use sim and flow.
tables, report
    the documented results tables, then the report that reads them.
cli
    the ``fhe-hw`` command (fhe_hw.cli, demo, the asic commands, ``python -m fhe_hw``).

A module imports, at module level, only modules of its own layer or lower ones (a package's
``__init__`` is its package's layer, so ``import fhe_hw.rns`` loads no simulator); only the cli
layer imports inside functions, to load the modules of the command that runs.
"""

import ast
import json
import os
import re
import subprocess
import sys
from functools import cache
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

#: The layers, lowest first: (name, pattern of the module names above the hardware layer's).
LAYERS = [
    ("hardware", None),
    ("sim", r"fhe_hw\.sim(\..*)?|fhe_hw\.link\.host"),
    ("flow", r"fhe_hw\.(flow|asic|bench)(\..*)?"),
    ("scenarios", r"fhe_hw\.(?!sim\.|flow\.|link\.)\w+\.(configs|vectors|cosim|run|host)"),
    ("tables", r"fhe_hw\.tables(\..*)?"),
    ("report", r"fhe_hw\.report(\..*)?"),
    ("cli", r"fhe_hw\.(cli|__main__|demo|asic\.cli)"),
]


def layer(module):
    """The index in :data:`LAYERS` of ``module``'s layer (the highest whose pattern it
    matches; the hardware layer holds the rest)."""
    return max((i for i, (_, pattern) in enumerate(LAYERS)
                if pattern and re.fullmatch(pattern, module)), default=0)


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


@cache
def _imports():
    """[(module, line, target module, imported name or None, inside a function)]: parsed once,
    in the worker that runs these tests, not at collection."""
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


def test_the_import_graph_has_no_cycles():
    graph = {}
    for module, _, target, _, _ in _imports():
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


def _where(module, line):
    return f"{MODULES[module][0].relative_to(ROOT)}:{line}"


def test_every_import_points_down_the_layers():
    up = [f"{_where(m, line)} ({LAYERS[layer(m)][0]}) imports {t} ({LAYERS[layer(t)][0]})"
          for m, line, t, _, _ in _imports() if layer(t) > layer(m)]
    assert not up, "imports of a higher layer: " + ", ".join(up)


def test_only_the_command_line_imports_a_module_of_the_package_inside_a_function():
    inside = [f"{_where(m, line)} imports {t}" for m, line, t, _, local in _imports()
              if local and LAYERS[layer(m)][0] != "cli"]
    assert not inside, "imports inside functions (only optional dependencies may be, and the " \
        "command line's): " + ", ".join(inside)


#: Imports the modules of each layer in turn, lowest first, and prints, after each layer, the
#: fhe_hw modules then loaded (a module that needs a missing optional dependency is left out).
_LOADED = """
import importlib, json, sys
for names in json.loads(sys.argv[1]):
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as e:
            if (e.name or "fhe_hw").startswith("fhe_hw"):
                raise
    print(json.dumps(sorted(m for m in sys.modules if m.startswith("fhe_hw"))))
"""


def _loaded(*layers):
    """For each list of module names in ``layers``, the fhe_hw modules a fresh Python has loaded
    after importing it and those before it."""
    done = subprocess.run([sys.executable, "-c", _LOADED, json.dumps(layers)], check=True,
                          capture_output=True, text=True, cwd=ROOT)
    return [json.loads(line) for line in done.stdout.splitlines()[-len(layers):]]


def test_importing_a_layer_loads_no_higher_one():
    """The modules of each layer and the lower ones, imported in one fresh process lowest
    first, load none of a higher layer (what the static check cannot see: a registry that
    imports by name). ``__main__`` runs the command and is left out."""
    names = [[m for m in MODULES if layer(m) == i and m != "fhe_hw.__main__"]
             for i in range(len(LAYERS))]
    higher = [f"{LAYERS[i][0]}: {m}" for i, loaded in enumerate(_loaded(*names))
              for m in loaded if layer(m) > i]
    assert not higher, "importing a layer loads a higher one: " + ", ".join(higher)


def test_the_command_line_loads_a_command_only_when_it_runs():
    """``import fhe_hw.cli`` (and so ``fhe-hw --help``) loads neither a unit nor a command's
    module: only the shared leaves and the tools' runner the command line itself uses."""
    assert set(_loaded(["fhe_hw.cli"])[0]) <= {"fhe_hw", "fhe_hw.cli", "fhe_hw.cliargs",
                                          "fhe_hw.units", "fhe_hw.flow", "fhe_hw.flow.run"}


def test_no_private_name_is_imported_from_another_module():
    private = [f"{m}:{line} imports {t}.{name}" for m, line, t, name, _ in _imports()
               if name is not None and name.startswith("_") and not name.endswith("__")]
    assert not private, ", ".join(private)


@pytest.mark.parametrize("module", ["fhe_hw.cli", "fhe_hw.demo", "fhe_hw.boards", "fhe_hw.asic"])
def test_the_scan_sees_the_package(module):
    assert module in MODULES


@pytest.mark.parametrize(("module", "name"), [
    ("fhe_hw.rns", "hardware"), ("fhe_hw.rns.cosim", "scenarios"), ("fhe_hw.link", "hardware"),
    ("fhe_hw.link.host", "sim"), ("fhe_hw.asic", "flow"), ("fhe_hw.asic.configs", "scenarios"),
    ("fhe_hw.asic.cli", "cli"), ("fhe_hw.tables.paper", "tables"), ("fhe_hw.bench.openfhe", "flow"),
    ("fhe_hw.builddir", "hardware"), ("fhe_hw.report.core", "report")])
def test_a_module_is_in_its_layer(module, name):
    assert module in MODULES and LAYERS[layer(module)][0] == name
