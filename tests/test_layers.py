"""The package's imports point one way: no circles, no arrow up the layers, no private names.

The layers, from the ground up (docs in README.md, "How the package is laid out"):

0. ``graph``, ``memory``, ``progress``, ``result``, ``privacy``
1. ``io``, ``datasets``, ``private_input``
2. ``mechanisms``, ``spectral``, ``engine`` (the non-private degree-2 SoS engine)
3. ``synthetic``
4. ``release`` (``privatize``, ``PrivateGraph``, the routes)
5. ``solve`` (the private answers)
6. ``cli``, ``nx_backend``, ``lab`` (NOT private: evaluation, baselines, audits), and the
   package's face (``dpgraph/__init__.py``, ``__main__``)

Every ``import`` counts, including those inside functions.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "dpgraph"

LAYERS = (
    ("graph", "memory", "progress", "result", "caller", "privacy"),
    ("io", "datasets", "private_input"),
    ("mechanisms", "spectral", "engine"),
    ("synthetic",),
    ("release",),
    ("solve",),
    ("cli", "nx_backend", "lab", "__main__", ""),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports() -> dict:
    """module -> {(imported module, name or None)} for every import of a dpgraph module."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        mod = _module_name(path)
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(a.name, None) for a in node.names if a.name.split(".")[0] == "dpgraph"}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[:len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                if base.split(".")[0] == "dpgraph":
                    found |= {(base, a.name) for a in node.names}
        out[mod] = found
    return out


def _target(modules: set, base: str, name) -> str:
    """The module an import reads: ``base.name`` when that is a module, else ``base``."""
    return f"{base}.{name}" if name and f"{base}.{name}" in modules else base


def _layer(mod: str) -> int:
    top = mod.split(".")[1] if "." in mod else ""
    for k, names in enumerate(LAYERS):
        if top in names:
            return k
    raise AssertionError(f"{mod} is in no layer: add its folder to LAYERS")


def _graph() -> dict:
    imports = _imports()
    modules = set(imports)
    return {m: {_target(modules, b, n) for b, n in found} - {m} for m, found in imports.items()}


def test_every_module_has_a_layer():
    for mod in _graph():
        _layer(mod)


def test_no_import_runs_up_the_layers():
    up = sorted(f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
                for m, targets in _graph().items() for t in targets if _layer(t) > _layer(m))
    assert not up, "\n".join(up)


def test_no_import_circles():
    graph = _graph()
    # Tarjan's strongly connected components
    index, low, on, stack, circles, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_no_private_name_is_imported_from_another_module():
    bad = sorted(f"{m} imports {n} from {b}" for m, found in _imports().items()
                 for b, n in found if n and n.startswith("_") and not n.startswith("__"))
    assert not bad, "\n".join(bad)


def test_public_names_are_not_shadowed_by_module_paths():
    """No import hook answers module paths the package does not have: ``import
    dpgraph.privatize`` would otherwise bind the module over the function ``dpgraph.privatize``."""
    import importlib
    import sys

    import dpgraph

    assert not [f for f in sys.meta_path if type(f).__module__.startswith("dpgraph")]
    for name in ("dpgraph.privatize", "dpgraph.csp", "dpgraph.audit"):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            pass
        else:
            raise AssertionError(f"{name} imports, but the package has no such module")
    assert callable(dpgraph.privatize) and callable(dpgraph.max_cut)
