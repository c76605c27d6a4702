"""Dataset registry, loader search order and messages, built-ins and bundled planted instances."""

import hashlib
import json
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from dpgraph import datasets
from dpgraph.datasets import (BUNDLED, REGISTRY, DatasetChecksumWarning, DatasetNotFoundError,
                              cut_weight)
from dpgraph.graph import GraphInputWarning
from dpgraph.io import read_graph

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_data(monkeypatch, tmp_path):
    """DPGRAPH_DATA and the cache dir point at empty folders."""
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "data").mkdir()
    return tmp_path


def test_registry_entries_are_complete():
    assert {"G3", "G35", "G48", "G81", "facebook", "chameleon", "ca-hepph", "email-Enron",
            "soc-douban"} <= set(REGISTRY)
    for name, e in REGISTRY.items():
        assert e.name == name and e.url.startswith("https://")
        assert len(e.sha256) == 64 and e.n > 0 and e.m > 0
        assert "{path}" in e.obtain
    assert REGISTRY["G3"].published["sdp_optimum"] == 12084.33
    assert REGISTRY["G81"].published["best_known_cut"] == 14030


def test_missing_file_message_says_how_to_obtain(no_data):
    with pytest.raises(DatasetNotFoundError) as info:
        datasets.load("G3")
    msg = str(info.value)
    assert "https://web.stanford.edu/~yyye/yyye/Gset/G3" in msg
    assert str(no_data / "cache" / "dpgraph" / "gset" / "G3.txt") in msg
    assert "DPGRAPH_DATA" in msg and REGISTRY["G3"].sha256 in msg and "\n" not in msg
    assert "G3" not in datasets.available()
    assert {"karate", "les-miserables", "florentine"} <= set(datasets.available())


def test_scale_graphs_are_registered_with_source_and_checksum(no_data):
    for name, host in (("email-Enron", "snap.stanford.edu"),
                       ("soc-douban", "networkrepository.com")):
        e = REGISTRY[name]
        assert e.path == f"social/{name}.txt" and e.format == "snap" and host in e.url
        with pytest.raises(DatasetNotFoundError) as info:
            datasets.load(name)
        assert e.url in str(info.value) and e.sha256 in str(info.value)


def test_scale_graphs_load_by_name(data_dir, monkeypatch):
    monkeypatch.setenv("DPGRAPH_DATA", str(data_dir))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # checksum and size match the registry
        enron = datasets.load("email-Enron")
        douban = datasets.load("soc-douban")
    assert (enron.n, enron.m, enron.labels[0], enron.labels[-1]) == (36692, 183831, 0, 36691)
    assert (douban.n, douban.m, douban.labels[0], douban.labels[-1]) == (154908, 327162, 1,
                                                                         154908)


def test_unknown_name():
    with pytest.raises(KeyError, match="karate"):
        datasets.load("no-such-graph")


def test_search_order_and_gzip_and_checksum(no_data, monkeypatch):
    text = "3 2\n1 2 1\n2 3 1\n"
    cache = no_data / "cache" / "dpgraph" / "gset"
    cache.mkdir(parents=True)
    (cache / "G3.txt").write_text(text)  # found in the cache, but not the registered copy
    with pytest.warns(DatasetChecksumWarning) as caught:
        g = datasets.load("G3")
    assert g.n == 3
    assert any("sha256" in str(w.message) for w in caught)
    assert any("n=3, m=2" in str(w.message) for w in caught)
    # DPGRAPH_DATA wins over the cache; the base name and a .gz beside it are accepted
    import gzip
    with gzip.open(no_data / "data" / "G3.txt.gz", "wt") as f:
        f.write("4 1\n1 2 1\n")
    assert datasets.find("G3") == no_data / "data" / "G3.txt.gz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DatasetChecksumWarning)
        assert datasets.load("G3").n == 4
    assert "G3" in datasets.available()


def test_builtins_match_networkx():
    k = datasets.load("karate")
    assert (k.n, k.m) == (34, 78) and k.is_unweighted
    assert set(k.labels) == set(nx.karate_club_graph().nodes)
    les = datasets.load("les-miserables")
    L = nx.les_miserables_graph()
    assert (les.n, les.m) == (77, 254)
    assert les.total_weight == L.size(weight="weight")
    f = datasets.load("florentine")
    assert (f.n, f.m) == (15, 20) and "Medici" in f.labels


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_instances(name):
    rec = BUNDLED[name]
    data_dir = ROOT / "dpgraph" / "datasets" / "data"
    assert not (ROOT / "datasets").exists()  # one copy: the package data
    assert hashlib.sha256((data_dir / rec["file"]).read_bytes()).hexdigest() == rec["sha256"]
    g = datasets.load(name)
    assert (g.n, g.m) == (rec["n"], rec["m"])
    inst = datasets.load_planted(name)
    # independent recount of the planted value from the edge list in the file
    edges = np.loadtxt(data_dir / rec["file"], skiprows=1, dtype=np.int64)
    side = inst.partition
    assert int(np.sum(side[edges[:, 0] - 1] != side[edges[:, 1] - 1])) == rec["planted_value"]
    assert cut_weight(inst.graph, inst.partition) == inst.planted_value
    if "bisection" in name:
        assert int(side.sum()) == rec["n"] // 2
    if rec["numpy"] == np.__version__:  # streams are only promised within one numpy version
        gen = getattr(datasets, rec["generator"].split(".")[-1])(**rec["params"], rng=rec["seed"])
        assert (gen.graph.weights != inst.graph.weights).nnz == 0


def test_bundled_index_is_the_folder_index():
    data_dir = ROOT / "dpgraph" / "datasets" / "data"
    a = json.loads((data_dir / "instances.json").read_text())
    assert a == BUNDLED
    # the index names every instance file the package ships, and nothing else
    listed = {rec[key] for rec in a.values() for key in ("file", "partition_file")}
    assert {p.name for p in data_dir.glob("*.txt")} == listed


def test_registry_checksums_and_sizes_on_real_files(data_dir):
    for name, e in REGISTRY.items():
        path = data_dir / e.path
        assert hashlib.sha256(path.read_bytes()).hexdigest() == e.sha256, name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GraphInputWarning)
            g = read_graph(path, format=e.format)
        assert (g.n, g.m) == (e.n, e.m), name


def test_load_real_files_without_warnings(data_dir, monkeypatch):
    monkeypatch.setenv("DPGRAPH_DATA", str(data_dir))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = datasets.load("chameleon")
    assert (g.n, g.m) == (2277, 31371)
    assert set(REGISTRY) <= set(datasets.available())


def test_upstream_ca_hepph_with_directed_header_loads(data_dir, monkeypatch, tmp_path):
    # SNAP's own ca-HepPh.txt.gz says "# Directed graph" but lists both directions
    import gzip

    header = ("# Directed graph (each unordered pair of nodes is saved once): CA-HepPh.txt\n"
              "# Nodes: 12008 Edges: 237010\n# FromNodeId\tToNodeId\n")
    (tmp_path / "social").mkdir()
    with gzip.open(tmp_path / "social" / "ca-hepph.txt.gz", "wt") as f:
        f.write(header + (data_dir / "social" / "ca-hepph.txt").read_text())
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path))
    g = datasets.load("ca-hepph")
    assert (g.n, g.m) == (12008, 118489)


def test_find_on_bundled_and_built_in_names():
    # both raised "unknown data set 'karate'; known: ..., karate, ..."
    from dpgraph.datasets import find, load
    from dpgraph.io import read_graph

    path = find("planted-cut-n200-d16")
    assert read_graph(path, format="gset").m == load("planted-cut-n200-d16").m
    with pytest.raises(KeyError, match="NetworkX built-in, with no file"):
        find("karate")
