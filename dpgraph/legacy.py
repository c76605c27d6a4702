"""Old module paths, kept importable with a :class:`DeprecationWarning`.

The package is laid out as its pipeline (``privacy``, ``io``, ``mechanisms``, ``spectral``,
``engine``, ``synthetic``, ``release``, ``solve``, ``cli``, ``lab``). Code written against the
earlier flat layout (``import dpgraph.csp``, ``from dpgraph.privatize import privatize``,
``dpgraph.audit.catalog``) keeps working: a finder on ``sys.meta_path`` answers each old name
with the module at its new place (the same module object, so patching either name patches
both) and says where it moved. Nothing inside the package imports an old name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: old module -> new module; a name below an old package maps below the new one
MOVED = {
    "dpgraph.csp.csp_formats": "dpgraph.engine.formats",
    "dpgraph.csp.improve": "dpgraph.engine.local_search",
    "dpgraph.csp.twocsp_lowrank": "dpgraph.engine.twocsp_sdp",
    "dpgraph.csp": "dpgraph.engine",
    "dpgraph.routes.memory": "dpgraph.memory",
    "dpgraph.routes": "dpgraph.release.routes",
    "dpgraph.privatize": "dpgraph.release.privatize",
    "dpgraph.private_graph": "dpgraph.release.private_graph",
    "dpgraph.rr_posterior": "dpgraph.release.posterior",
    "dpgraph.private_solvers": "dpgraph.solve.cut",
    "dpgraph.private_csp": "dpgraph.solve.csp",
    "dpgraph.dask_graph": "dpgraph.io.dask",
    "dpgraph.evaluate": "dpgraph.lab.evaluate",
    "dpgraph.baselines": "dpgraph.lab.baselines",
    "dpgraph.benchmarking": "dpgraph.lab.benchmarking",
    "dpgraph.audit": "dpgraph.lab.audit",
    "dpgraph.spectral.baselines": "dpgraph.lab.pca_baselines",
    "dpgraph.cli_private": "dpgraph.cli.commands",
    "dpgraph.cli_csp": "dpgraph.cli.max2csp",
    "dpgraph.cli_json": "dpgraph.cli.output",
}


def new_name(old: str) -> str | None:
    """The module an old dotted name now lives at, or None if the name did not move."""
    for prefix in sorted(MOVED, key=len, reverse=True):
        if old == prefix or old.startswith(prefix + "."):
            return MOVED[prefix] + old[len(prefix):]
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.original = (module.__spec__, module.__loader__)
        return module

    def exec_module(self, module):
        # the import system stamped the old name's spec on the module: give it back its own
        module.__spec__, module.__loader__ = self.original


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers an old module name with the module at its new place (and warns)."""

    def find_spec(self, fullname, path=None, target=None):
        target_name = new_name(fullname)
        if target_name is None:
            return None
        warnings.warn(f"{fullname} moved to {target_name}; import it from there",
                      DeprecationWarning, stacklevel=2)
        return importlib.util.spec_from_loader(fullname, _Alias(target_name))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
