"""Every dpgraph warning is a :class:`dpgraph.DPGraphWarning` and points at the caller's line.

One filter on the base class covers every warning the package issues, and a warning raised
deep inside dpgraph (a writer under ``write_graph``, a route under ``privatize``, a sampler
under ``PrivateGraph.sample``) names the line that called dpgraph, not a line of dpgraph.
"""

import ast
import importlib
import os
import warnings
from pathlib import Path

import networkx as nx
import pytest

import dpgraph

PACKAGE = Path(dpgraph.__file__).resolve().parent
HERE = os.path.abspath(__file__)


def _warning_classes():
    """Every class defined in a dpgraph module with a base whose name ends in ``Warning``."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [node.name for node in tree.body if isinstance(node, ast.ClassDef)
                 and any(getattr(b, "id", getattr(b, "attr", "")).endswith("Warning")
                         for b in node.bases)]
        if names:
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            module = importlib.import_module(".".join(parts))
            found.update({f"{module.__name__}.{n}": getattr(module, n) for n in names})
    return found


def _caught(fn, category=dpgraph.DPGraphWarning):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, category)]


def test_every_warning_class_is_a_dpgraph_warning():
    classes = _warning_classes()
    assert {c.__name__ for c in classes.values()} >= {
        "DPGraphWarning", "GraphInputWarning", "DuplicateEdgeWarning", "ReproducibleNoiseWarning",
        "DatasetChecksumWarning", "BackendDeclinedWarning", "SyntheticSampleWarning",
        "PCAHaltedWarning"}
    not_ours = sorted(name for name, c in classes.items()
                      if not issubclass(c, dpgraph.DPGraphWarning))
    assert not not_ours, not_ours
    assert issubclass(dpgraph.DPGraphWarning, UserWarning)
    # each is exported from the package's face, as the class its module defines
    for c in classes.values():
        assert getattr(dpgraph, c.__name__) is c and c.__name__ in dpgraph.__all__


def test_existing_filters_keep_working():
    assert issubclass(dpgraph.DuplicateEdgeWarning, dpgraph.GraphInputWarning)
    assert dpgraph.ReproducibleNoiseWarning is dpgraph.privacy.ReproducibleNoiseWarning
    assert dpgraph.DatasetChecksumWarning is dpgraph.datasets.DatasetChecksumWarning


def test_one_filter_on_the_base_class_turns_dpgraph_warnings_into_errors():
    from dpgraph.synthetic.block_model import warn_if_sparse_sample

    with warnings.catch_warnings():
        warnings.simplefilter("error", dpgraph.DPGraphWarning)
        with pytest.raises(dpgraph.GraphInputWarning, match="self-loop"):
            dpgraph.as_graph_data(nx.Graph([(0, 0), (0, 1)]))
        with pytest.raises(dpgraph.SyntheticSampleWarning, match="released edge count"):
            warn_if_sparse_sample(0, 10)
        dpgraph.as_graph_data(nx.path_graph(3))  # no warning, no error


@pytest.mark.parametrize("name", ["h.txt", "h.csv", "h.edgelist"])
def test_write_graph_isolated_node_warning_points_at_the_caller(tmp_path, name):
    G = nx.path_graph(3)
    G.add_node(99)
    caught = _caught(lambda: dpgraph.write_graph(G, tmp_path / name))
    assert [w.category for w in caught] == [dpgraph.GraphInputWarning]
    assert "isolated" in str(caught[0].message) and caught[0].filename == HERE


def test_read_graph_duplicate_warning_points_at_the_caller(tmp_path):
    path = tmp_path / "g.edgelist"
    path.write_text("1 2\n1 2\n2 3\n")
    caught = _caught(lambda: dpgraph.read_graph(path, format="edgelist"))
    assert [w.category for w in caught] == [dpgraph.DuplicateEdgeWarning]
    assert caught[0].filename == HERE


def test_matrix_free_sample_warnings_point_at_the_caller():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpgraph.ReproducibleNoiseWarning)
        sparse = dpgraph.privatize(nx.path_graph(60), epsilon=0.5, delta=1e-6, weight=None,
                                   route="matrix-free", rng=1)  # released count 7 < 30
        dense = dpgraph.privatize(nx.complete_graph(30), epsilon=8.0, delta=1e-6, weight=None,
                                  route="matrix-free", rng=0)
    caught = _caught(lambda: sparse.sample(), dpgraph.SyntheticSampleWarning)
    assert [str(w.message).startswith("the released edge count") for w in caught] == [True]
    assert caught[0].filename == HERE
    caught = _caught(lambda: dense.sample(), dpgraph.SyntheticSampleWarning)
    assert [("repeated or self pairs" in str(w.message)) for w in caught] == [True]
    assert caught[0].filename == HERE


def test_synthetic_release_sample_warning_points_at_the_caller():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpgraph.ReproducibleNoiseWarning)
        rel = dpgraph.release_synthetic(nx.empty_graph(200), epsilon=0.5, weight=None, rng=0)
    caught = _caught(lambda: rel.sample(), dpgraph.SyntheticSampleWarning)
    assert caught and all(w.filename == HERE for w in caught)


def test_pca_halted_warning_points_at_the_caller():
    caught = _caught(lambda: dpgraph.privatize(nx.path_graph(40), epsilon=0.5, delta=1e-6,
                                               rank=2, route="pca", fallback="none",
                                               weight=None, rng=0),
                     dpgraph.PCAHaltedWarning)
    assert len(caught) == 1 and caught[0].filename == HERE
