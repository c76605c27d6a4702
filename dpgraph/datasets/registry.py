"""Registry of public benchmark graphs and the loader that finds them on disk (never downloads)."""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from dpgraph.caller import DPGraphWarning, caller_stacklevel
from dpgraph.graph import DuplicateEdgeWarning, GraphData, as_graph_data

__all__ = ["DatasetEntry", "DatasetNotFoundError", "DatasetChecksumWarning", "REGISTRY",
           "BUILTIN", "BUNDLED", "load", "load_planted", "available", "find", "data_dirs",
           "close_match"]


class DatasetNotFoundError(FileNotFoundError):
    """A registered data set whose file is in none of the searched folders."""


class DatasetChecksumWarning(DPGraphWarning):
    """The file found for a data set differs from the registered copy (sha256)."""


@dataclass(frozen=True)
class DatasetEntry:
    """One registered benchmark graph.

    Attributes
    ----------
    name : str
        Registry key, as passed to :func:`load`.
    path : str
        Where the file sits relative to a data folder (e.g. ``"gset/G3.txt"``).
    format : str
        Format name for :func:`dpgraph.io.read_graph`.
    url : str
        Public source.
    sha256 : str
        Checksum of the reference copy (the project's shared data folder).
    n, m : int
        Nodes and undirected edges after reading (self-loops dropped).
    description : str
    obtain : str
        How to produce the file at ``path`` from the source.
    published : dict
        Values from the literature (see ``references``), e.g. SDP optimum and best known cut.
    references : str
    read_options : dict
        Extra keyword arguments for :func:`dpgraph.io.read_graph` (e.g. ``symmetrize="max"`` for
        a SNAP file whose header says "Directed graph" although it lists both directions).
    """

    name: str
    path: str
    format: str
    url: str
    sha256: str
    n: int
    m: int
    description: str
    obtain: str
    published: dict = field(default_factory=dict)
    references: str = ""
    read_options: dict = field(default_factory=dict)


_GSET_URL = "https://web.stanford.edu/~yyye/yyye/Gset/{}"
_GSET_OBTAIN = ("download {url} and save it unchanged (first line 'n m', then 1-indexed "
                "'i j w' lines) as {path}")
_GSET_REF = ("SDP optima from published Max-Cut SDP tables; best known cuts from Benlic & Hao, "
             "'Breakout local search for the max-cut problem' (2013). 'about' values are "
             "approximate.")


def _gset(name, sha, n, m, desc, published):
    url = _GSET_URL.format(name)
    path = f"gset/{name}.txt"
    return DatasetEntry(name, path, "gset", url, sha, n, m, desc, _GSET_OBTAIN, published,
                        _GSET_REF)


_PRIVGRAPH_REF = ("Reference points at epsilon = 1 from the project's shared data README: Max-Cut "
                  "found on the private output, scored on the true graph, divided by the best "
                  "non-private cut found by local search (single seeds).")

REGISTRY: dict[str, DatasetEntry] = {
    e.name: e
    for e in [
        _gset("G3", "ca74e5cf7b2e16a0267c34ca81241244b5ffa2aabf0b9d4dcdb2320210c860d4", 800,
              19176, "G-set G3: random graph, weights +1",
              {"sdp_optimum": 12084.33, "best_known_cut": 11622}),
        _gset("G35", "2154141bdb637b986e09217cf3d6c13a052fa43dac5e208215f5758e98d8d4f7", 2000,
              11778, "G-set G35: planar-like, weights +1",
              {"sdp_optimum": 8014.74, "best_known_cut": "about 7684-7687"}),
        _gset("G48", "9c5939f28e43c01ea28bccf7115f46f3d56e3ce96381e2af025bead3add8ce54", 3000,
              6000, "G-set G48: toroidal grid, weights +1",
              {"sdp_optimum": 6000, "best_known_cut": 6000, "optimal": True}),
        _gset("G81", "8845210675befbdf4fb602c2980de7dd98f0ad0ef17e20d044cebde263a23af0", 20000,
              40000, "G-set G81: toroidal grid 100 x 200, weights +-1",
              {"sdp_optimum": "about 15655.3 (low-rank solve, certified upper bound 15656.7)",
               "best_known_cut": 14030}),
        DatasetEntry(
            "facebook", "social/facebook.txt", "snap",
            "https://snap.stanford.edu/data/facebook_combined.txt.gz",
            "959f39040b5fc7f3054acb905aef1d974d49168e971b5ee4c4891eb187198673", 4039, 88234,
            "SNAP ego-Facebook (McAuley & Leskovec), combined ego networks, 'u v' lines",
            "download {url}, gunzip it and save the result as {path}",
            {"min_degree": 1, "mean_degree": 43.7,
             "maxcut_ratio_eps1": {"random cut": 0.892, "PrivGraph": 0.893,
                                   "randomized response": 0.910,
                                   "Gaussian on adjacency + rank-r + clip": "0.893-0.899"}},
            _PRIVGRAPH_REF),
        DatasetEntry(
            "chameleon", "social/chameleon.txt", "snap",
            "https://snap.stanford.edu/data/wikipedia.zip",
            "252ed93ebae8d04088007a5faf00b274527a1ceafaee16378ac99f81f14e1913", 2277, 31371,
            "Wikipedia 'chameleon' page network (MUSAE, Rozemberczki et al.); the file has 50 "
            "self-loops, dropped on reading, and lists 4,680 of its edges in both directions, "
            "read as one edge each (duplicates='max')",
            "download {url}, take chameleon/musae_chameleon_edges.csv, drop its header line "
            "'id1,id2', replace the commas by spaces and save it as {path}",
            {"min_degree": 1, "mean_degree": 27.6,
             "maxcut_ratio_eps1": {"random cut": 0.709, "PrivGraph": 0.709,
                                   "randomized response": 0.724,
                                   "Gaussian on adjacency + rank-r + clip": "0.711-0.716"}},
            _PRIVGRAPH_REF),
        DatasetEntry(
            "ca-hepph", "social/ca-hepph.txt", "snap",
            "https://snap.stanford.edu/data/ca-HepPh.txt.gz",
            "3b6c970505094479bf23eb0714e5b25ef01854d502d62bbece18f67a65bca2e5", 12008, 118489,
            "SNAP ca-HepPh collaboration network (both directions listed, 32 self-loops "
            "dropped on reading)",
            "download {url}, gunzip it, delete its four '#' header lines and save it as {path} "
            "(the upstream file also loads as it is, saved as {path}.gz, but its checksum then "
            "differs)",
            {"min_degree": 1, "mean_degree": 19.7}, _PRIVGRAPH_REF,
            read_options={"symmetrize": "max"}),
        DatasetEntry(
            "email-Enron", "social/email-Enron.txt", "snap",
            "https://snap.stanford.edu/data/email-Enron.txt.gz",
            "3f9baf09020f59797f464f8def0638bdade13eb96a4d6a1c965e2b21ec4f09f4", 36692, 183831,
            "SNAP email-Enron (Klimt & Yang; Leskovec et al.): the Enron e-mail network, one "
            "'u v' line per undirected edge, ids 0..36691",
            "download {url}, gunzip it, delete its four '#' header lines, keep each pair once "
            "(u < v; the upstream file lists both directions) and save it as {path}",
            {"min_degree": 1, "mean_degree": 10.0}, "J. Leskovec, K. Lang, A. Dasgupta, M. "
            "Mahoney, 'Community Structure in Large Networks' (2009); used here for scale "
            "(beyond a dense n x n representation on one machine)"),
        DatasetEntry(
            "soc-douban", "social/soc-douban.txt", "snap",
            "https://networkrepository.com/soc-douban.php",
            "376b479e649d522b5c6a32a7293b7d28a52e0bdf35736a32f5c206e759f4f3ba", 154908, 327162,
            "Network Repository soc-douban: the Douban social network, one 'u v' line per "
            "undirected edge, the MatrixMarket file's 1-based ids 1..154908 kept",
            "download the soc-douban archive from {url}, take its MatrixMarket pattern file "
            "soc-douban.mtx, drop its '%' comment lines and its size line, and save the "
            "remaining 'u v' lines as {path}",
            {"min_degree": 1, "mean_degree": 4.2}, "R. A. Rossi and N. K. Ahmed, 'The Network "
            "Data Repository with Interactive Graph Analytics and Visualization' (AAAI 2015); "
            "used here for scale (sparse, 154,908 nodes)"),
    ]
}

#: Small graphs that ship with NetworkX (always available offline): name -> (builder, note).
BUILTIN = {
    "karate": "Zachary's karate club (networkx.karate_club_graph), read unweighted: every edge "
              "weight 1 (the NetworkX graph's 'weight' attribute, meeting counts 1 to 7, is not "
              "read; dpgraph.as_graph_data(networkx.karate_club_graph()) keeps it): n=34, m=78",
    "les-miserables": "Les Miserables co-occurrences (networkx.les_miserables_graph), weighted "
                      "by co-occurrence counts: n=77, m=254; labels are character names",
    "florentine": "Florentine families marriages (networkx.florentine_families_graph), "
                  "unweighted: n=15, m=20; labels are family names",
}

_PACKAGE_DATA = Path(__file__).with_name("data")


def _bundled() -> dict:
    index = _PACKAGE_DATA / "instances.json"
    if not index.is_file():
        return {}
    with open(index, encoding="utf-8") as f:
        return json.load(f)


#: Planted instances shipped inside the package (generated by benchmarks/make_instances.py):
#: name -> record with file, sha256, n, m, planted_value, params, seed.
BUNDLED: dict = _bundled()


def data_dirs() -> list[Path]:
    """Folders searched for registry files, in order: ``$DPGRAPH_DATA`` (if set), then the user
    cache ``$XDG_CACHE_HOME/dpgraph`` (default ``~/.cache/dpgraph``).

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.mkdtemp()
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_DATA": folder}):
    ...     dirs = data_dirs()
    >>> dirs[0] == Path(folder), dirs[-1].name  # $DPGRAPH_DATA first, then the user cache
    (True, 'dpgraph')
    """
    dirs = []
    env = os.environ.get("DPGRAPH_DATA")
    if env:
        dirs.append(Path(env).expanduser())
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.append(Path(cache) / "dpgraph")
    return dirs


def find(name: str) -> Path:
    """Path of the file of registered data set ``name`` (see :func:`data_dirs`), trying the
    registered relative path, its base name, and a ``.gz`` beside each; for a bundled instance
    (:data:`BUNDLED`), its file in the package. A NetworkX built-in has no file (KeyError).

    Raises
    ------
    DatasetNotFoundError
        With a one-line message that says where to download the file and where to put it.

    Examples
    --------
    >>> path = find("planted-cut-n200-d16")  # bundled with the package
    >>> path.name, path.is_file()
    ('planted-cut-n200-d16.txt', True)
    >>> import os, tempfile
    >>> from unittest import mock
    >>> empty = tempfile.mkdtemp()
    >>> with mock.patch.dict(os.environ, {"DPGRAPH_DATA": empty, "XDG_CACHE_HOME": empty}):
    ...     try:
    ...         find("G3")  # a registry file in none of the data folders
    ...     except DatasetNotFoundError as e:
    ...         print(str(e)[:47])
    data set 'G3' not found (looked for gset/G3.txt
    """
    if name in BUNDLED:  # a G-set file inside the package
        return _PACKAGE_DATA / BUNDLED[name]["file"]
    entry = _entry(name)
    candidates = []
    for root in data_dirs():
        for rel in (entry.path, Path(entry.path).name):
            candidates += [root / rel, root / (str(rel) + ".gz")]
    for c in candidates:
        if c.is_file():
            return c
    dirs = data_dirs()
    env = os.environ.get("DPGRAPH_DATA")
    missing = ""
    if env and not dirs[0].is_dir():  # a typo in the variable: say so, not only "not found"
        missing = (f"; DPGRAPH_DATA={env} is "
                   + ("not a folder" if dirs[0].exists() else "no such folder"))
    raise DatasetNotFoundError(
        f"data set {name!r} not found (looked for {entry.path} in "
        f"{' and '.join(str(d) for d in dirs)}{missing}); to obtain it: "
        + entry.obtain.format(url=entry.url, path=f"{dirs[-1] / entry.path}")
        + f" (sha256 {entry.sha256}), or set DPGRAPH_DATA to a folder that holds {entry.path}; "
        "dpgraph never downloads")


def _entry(name: str) -> DatasetEntry:
    if name in BUILTIN:  # known, but not a file that find() can return
        raise KeyError(f"data set {name!r} is a NetworkX built-in, with no file to find; "
                       f"dpgraph.datasets.load({name!r}) gives the graph")
    if name not in REGISTRY:
        names = sorted(set(REGISTRY) | set(BUILTIN) | set(BUNDLED))
        raise KeyError(f"unknown data set {name!r}{close_match(name, names)}; known: "
                       f"{', '.join(names)}")
    return REGISTRY[name]


def close_match(name, names) -> str:
    """``" (did you mean 'x'?)"`` for the known name closest to ``name`` (case ignored first:
    the names are case-sensitive), or ``""``.

    >>> close_match("Karate", ["G3", "karate"]), close_match("xyz", ["G3", "karate"])
    (" (did you mean 'karate'?)", '')
    """
    import difflib

    text = str(name)
    same = [k for k in names if k.lower() == text.lower()]
    close = same or difflib.get_close_matches(text, names, n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _load_builtin(name: str) -> GraphData:
    import networkx as nx

    if name == "karate":
        G = nx.karate_club_graph()
        return as_graph_data(G, weight=None)  # every edge weight 1 (its weights are counts)
    if name == "les-miserables":
        return as_graph_data(nx.les_miserables_graph())
    return as_graph_data(nx.florentine_families_graph())


def load(name: str, *, verify: bool = True) -> GraphData:
    """Load a data set by name as :class:`~dpgraph.graph.GraphData`.

    ``name`` is a registry entry (:data:`REGISTRY`: the G-set instances and SNAP graphs, found on
    disk through :func:`data_dirs`), a NetworkX built-in (:data:`BUILTIN`: ``"karate"``,
    ``"les-miserables"``, ``"florentine"``), or a planted instance shipped with the package
    (:data:`BUNDLED`). Nothing is ever downloaded.

    With ``verify=True`` a registry file whose sha256 differs from the registered copy gives a
    :class:`DatasetChecksumWarning` (it is still read; the n and m check below still applies).

    Raises
    ------
    DatasetNotFoundError
        The file is missing; the message says how to obtain it.
    KeyError
        Unknown name.

    Examples
    --------
    >>> load("karate")  # a NetworkX built-in
    GraphData(n=34, m=78, weights in [1, 1])
    >>> g = load("planted-cut-n200-d16")  # a planted instance shipped with the package
    >>> rec = BUNDLED["planted-cut-n200-d16"]
    >>> g.n, (g.n, g.m) == (rec["n"], rec["m"])
    (200, True)
    """
    from dpgraph.io import read_graph

    if name in BUILTIN:
        return _load_builtin(name)
    if name in BUNDLED:
        rec = BUNDLED[name]
        return read_graph(_PACKAGE_DATA / rec["file"], format="gset")
    entry = _entry(name)
    path = find(name)
    if verify and not path.name.endswith(".gz") and _sha256(path) != entry.sha256:
        warnings.warn(f"{path}: sha256 differs from the registered copy of {name!r} "
                      f"({entry.sha256}); reading it anyway", DatasetChecksumWarning,
                      stacklevel=caller_stacklevel())
    with warnings.catch_warnings():
        # the registered files' self-loops and edges listed in both directions are documented
        # in the entry; do not warn each load
        warnings.filterwarnings("ignore", message=".*self-loop.*")
        warnings.filterwarnings("ignore", category=DuplicateEdgeWarning)
        data = read_graph(path, format=entry.format, **entry.read_options)
    if (data.n, data.m) != (entry.n, entry.m):
        warnings.warn(f"{path}: read n={data.n}, m={data.m} but the registry says n={entry.n}, "
                      f"m={entry.m} for {name!r}", DatasetChecksumWarning, stacklevel=caller_stacklevel())
    return data


def load_planted(name: str):
    """Load a bundled planted instance (:data:`BUNDLED`) as a
    :class:`~dpgraph.datasets.PlantedInstance`: the graph (labels ``1..n`` as in the file), the
    planted partition in node-index order and its recorded cut value.

    Example
    -------
    >>> inst = load_planted("planted-cut-n200-d16")
    >>> inst.graph.n, inst.planted_value
    (200, 1270.0)
    """
    import numpy as np

    from dpgraph.io import read_graph
    from dpgraph.datasets.generators import PlantedInstance

    if name not in BUNDLED:
        raise KeyError(f"unknown planted instance {name!r}; bundled: {', '.join(sorted(BUNDLED))}")
    rec = BUNDLED[name]
    graph = read_graph(_PACKAGE_DATA / rec["file"], format="gset")
    partition = np.loadtxt(_PACKAGE_DATA / rec["partition_file"], dtype=np.int8, ndmin=1)
    params = dict(rec["params"], generator=rec["generator"], seed=rec["seed"])
    return PlantedInstance(graph, partition, float(rec["planted_value"]), params)


def available() -> list[str]:
    """Names that :func:`load` can load now (built-ins, bundled instances, registry files found
    on disk), sorted.

    Examples
    --------
    >>> names = available()
    >>> "karate" in names, set(BUILTIN) | set(BUNDLED) <= set(names), names == sorted(names)
    (True, True, True)
    """
    names = set(BUILTIN) | set(BUNDLED)
    for name in REGISTRY:
        try:
            find(name)
        except DatasetNotFoundError:
            continue
        names.add(name)
    return sorted(names)
