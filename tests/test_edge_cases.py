"""Edge cases of an extreme-input audit (s60): scale invariance of the cosine similarities,
matrix-free exports inside the feasible range, clear refusals of odd matrices, labels and
weights, interval messages, command-line spellings of internal shares, and files that
write_graph writes and read_graph reads back."""

import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dpgraph
from dpgraph.cli import app as cli
from dpgraph.cli.errors import cli_message
from dpgraph.graph import GraphInputWarning, as_graph_data
from dpgraph.io import GraphFormatError, NoEdgesError, check_labels_storable, read_graph, write_graph
from dpgraph.io.text import ids_comment
from dpgraph.mechanisms.cosine import _gram_of_unit_rows
from dpgraph.privacy.validation import check_number
from dpgraph.release import factor_graph

# ----------------------------------------------------------------------------- 1. cosine


@pytest.mark.parametrize("scale", [1.0, 1e200, 1e-200, 1e-310, 1e308, -1e300])
@pytest.mark.parametrize("sparse", [False, True])
def test_cosine_gram_does_not_depend_on_the_rows_scale(scale, sparse):
    """np.linalg.norm overflowed at 1e200 (similarity 0.0003) and underflowed at 1e-200
    (refused as a zero vector)."""
    V = np.array([[scale, scale], [1.0, 0.0], [0.0, 1.0], [3.0, -4.0]])
    U = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [3.0, -4.0]]) * [[np.sign(scale)], [1],
                                                                          [1], [1]]
    U /= np.linalg.norm(U, axis=1)[:, None]  # the same rows at scale 1
    exact = U @ U.T
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        G = _gram_of_unit_rows(sp.csr_array(V) if sparse else V)
    assert np.allclose(G, exact, atol=1e-12)


def test_cosine_similarities_are_the_same_at_every_scale():
    base = np.random.default_rng(0).standard_normal((5, 3))
    out = []
    for scale in (1.0, 1e200, 1e-200):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            res = dpgraph.private_cosine_similarities(base * scale, epsilon=1e6, delta=1e-6,
                                                      rng=0)
        out.append(res.similarities)
    U = base / np.linalg.norm(base, axis=1)[:, None]
    for S in out:
        assert np.allclose(S, out[0], atol=1e-12)
        assert np.allclose(S, U @ U.T, atol=1e-3)  # epsilon 1e6: noise ~1e-5


@pytest.mark.parametrize("V", [np.zeros((0, 3)), sp.csr_array((0, 3))])
def test_cosine_of_no_vectors_asks_for_a_row(V):
    with pytest.raises(ValueError, match=r"at least one vector \(one row\), got shape \(0, 3\)"):
        dpgraph.private_cosine_similarities(V, epsilon=1.0, delta=1e-6)


def test_cosine_still_refuses_zero_rows_and_non_matrices():
    with pytest.raises(ValueError, match=r"every row must be non-zero.*rows \[1\]"):
        _gram_of_unit_rows(np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="2-d array"):
        _gram_of_unit_rows(np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        _gram_of_unit_rows(np.array([[1.0, np.inf]]))


# ----------------------------------------------------------------------------- 2. matrix-free


def _mf(G):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dpgraph.privatize(G, epsilon=1.0, delta=1e-6, rng=0, weight=None,
                                 route="matrix-free")


def _exported_weights(data):
    return data.weights.data


@pytest.mark.parametrize("G", [nx.complete_graph(3), nx.karate_club_graph()],
                         ids=["K3", "karate"])
def test_matrix_free_exports_stay_in_the_feasible_range(G):
    """K3 gave edge_count 8.99 (at most 3 pairs) and karate 59 pairs of weight above 1 (up to
    7.55): the dense routes' exports lie in [0, 1]."""
    pg = _mf(G)
    n = G.number_of_nodes()
    assert 0.0 <= pg.edge_count <= n * (n - 1) / 2
    W = pg.weights()
    assert W.min() >= 0.0 and W.max() <= 1.0 and np.all(np.diag(W) == 0)
    assert np.allclose(W, np.clip(pg.operator().to_dense(), 0.0, 1.0))
    for data in (pg.to_graph_data(), pg.to_graph_data(max_edges=5)):
        w = _exported_weights(data)
        assert w.size and w.min() > 0.0 and w.max() <= 1.0
    H = pg.to_networkx()
    assert all(0.0 < d["weight"] <= 1.0 for *_, d in H.edges(data=True))


def test_matrix_free_k3_release_really_exceeds_the_range_before_clipping():
    """The case of the audit: the unclipped objective (what the solvers use) is above 1."""
    pg = _mf(nx.complete_graph(3))
    assert float(np.sum(pg.degrees)) / 2.0 > 3.0  # the noise drew more than 3 edges' worth
    assert pg.edge_count == 3.0
    assert pg.operator().to_dense().max() > 1.0  # the objective stays the released W^


def test_matrix_free_blockwise_export_clips_too(monkeypatch):
    """Above DENSE_EXPORT_MAX_N nodes the export goes by row blocks: clipped there as well."""
    pg = _mf(nx.karate_club_graph())
    top = np.sort(np.triu(pg.operator().to_dense(), 1).ravel())[::-1][:20]
    assert top[0] > 1.0
    monkeypatch.setattr(factor_graph, "DENSE_EXPORT_MAX_N", 10)
    data = pg.to_graph_data(max_edges=20, block_rows=7)
    w = _exported_weights(data)
    assert data.m == 20 and w.max() <= 1.0
    assert np.allclose(np.sort(w[::1])[::-1][::2], np.minimum(top, 1.0))


# ----------------------------------------------------------------------------- 3. from_matrix


@pytest.mark.parametrize("M", [np.ones((3, 3, 3)), np.ones(3), sp.coo_array(np.ones(3))],
                         ids=["3-d", "1-d", "sparse 1-d"])
def test_a_matrix_of_other_dimension_is_refused_by_dpgraph(M):
    with pytest.raises(ValueError, match=r"must be a square 2-d matrix, got shape \(3"):
        as_graph_data(M)


def test_unhashable_labels_are_refused_naming_the_label():
    A = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(TypeError, match=r"labels: node label \[1\] \(list\) is not hashable"):
        as_graph_data(A, labels=[[1], [2], [3]])
    with pytest.raises(TypeError, match="not hashable"):
        as_graph_data(sp.csr_array(A), labels=["a", "b", {"c": 1}])
    assert as_graph_data(A, labels=[(0, "a"), (1, "b"), 2]).labels == ((0, "a"), (1, "b"), 2)


# ----------------------------------------------------------------------------- 4. weight types


def _weights_of(value, G=None):
    G = nx.cycle_graph(6) if G is None else G
    nx.set_edge_attributes(G, value, "weight")
    return sorted(set(as_graph_data(G).weights.data.tolist()))


@pytest.mark.parametrize("value,expected", [
    (Decimal("0.5"), 0.5), (Fraction(1, 4), 0.25), (np.True_, 1.0), (True, 1.0),
    (np.float32(0.5), 0.5), ("0.5", 0.5), (" 7 ", 7.0), ("1e-1", 0.1)])
def test_real_weights_are_read_as_their_number(value, expected):
    assert _weights_of(value) == [expected]


def test_numpy_false_is_false():
    """np.False_ is refused no more than False: both are weight 0 (the edge is removed)."""
    for value in (False, np.False_):
        G = nx.path_graph(3)
        nx.set_edge_attributes(G, value, "weight")
        with pytest.warns(GraphInputWarning, match="weight 0"):
            assert as_graph_data(G).m == 0


def test_decimal_weights_of_a_multigraph_add_as_numbers():
    M = nx.MultiGraph()
    M.add_edge(0, 1, weight=Decimal("0.25"))
    M.add_edge(0, 1, weight=Decimal("0.5"))
    M.add_edge(1, 2, weight=np.True_)
    W = as_graph_data(M, duplicates="sum").weights.toarray()
    assert W[0, 1] == 0.75 and W[1, 2] == 1.0


@pytest.mark.parametrize("value,why", [
    ("1_0", "may not hold '_'"), ("abc", "not a real number"), (None, "not a real number"),
    (1j, "not a real number"), (Decimal("sNaN"), "signalling NaN")])
def test_non_numbers_are_refused_naming_the_edge(value, why):
    with pytest.raises(ValueError, match=r"edge \(0, 1\) has weight=.*" + re_escape(why)):
        _weights_of(value)


def re_escape(text):
    return re.escape(text)


@pytest.mark.parametrize("value", [Decimal("NaN"), Decimal("Infinity"), "nan", math.inf])
def test_non_finite_weights_are_refused_alike(value):
    with pytest.raises(ValueError, match="non-finite"):
        _weights_of(value)


# ----------------------------------------------------------------------------- 5. check_number


@pytest.mark.parametrize("kw,value,text", [
    ({"low": 0.0}, math.inf, "kappa must be a finite number >= 0, got inf"),
    ({"low": 0.0, "open_low": True}, -1.0, "kappa must be a finite number > 0, got -1.0"),
    ({"high": 1.0}, 2.0, "kappa must be a finite number <= 1, got 2.0"),
    ({"high": 1.0, "open_high": True}, math.nan, "kappa must be a finite number < 1, got nan"),
    ({"low": 0.0, "high": 1.0}, 2.0, r"kappa must be a finite number in [0, 1], got 2.0"),
    ({}, math.inf, "kappa must be a finite number, got inf")])
def test_check_number_says_the_interval_it_means(kw, value, text):
    with pytest.raises(ValueError) as err:
        check_number(value, name="kappa", **kw)
    assert str(err.value) == text


def test_max_cut_kappa_inf_message_does_not_contradict_itself():
    with pytest.raises(ValueError, match="kappa must be a finite number >= 0, got inf"):
        dpgraph.max_cut(nx.karate_club_graph(), epsilon=1, delta=1e-6, weight=None,
                        kappa=math.inf)


# ----------------------------------------------------------------------------- 6. CLI spellings


def test_internal_shares_are_not_spelled_as_the_users_flags():
    laplace = ("sensitivity=1.0, epsilon=1e-13: outside the discrete Laplace's range (grid step "
               "844.8): a noise this large hides any answer; use a larger epsilon (at this step "
               "of the computation epsilon is a share of the one you passed; a direct call of a "
               "dpgraph.privacy mechanism may pass sampler='continuous')")
    text = cli_message(laplace)
    assert "--epsilon" not in text and "sampler" not in text
    assert text.startswith("sensitivity 1.0 at a share of epsilon of 1e-13: outside")
    gauss = ("sensitivity=2.0, epsilon=1e-12, delta=1e-09: outside the discrete Gaussian's "
             "range (grid step 3.0): ...")
    assert cli_message(gauss).startswith(
        "sensitivity 2.0 at a share of epsilon of 1e-12 and of delta of 1e-09: outside")
    sigma = "sensitivity=1.0 at epsilon=1e-300, delta=1e-06 gives a noise scale sigma=inf"
    assert "--" not in cli_message(sigma)
    assert cli_message("core needs epsilon=0.5 but only 0.2 of 1 is left") == (
        "core needs epsilon 0.5 but only 0.2 of 1 is left")


def test_the_users_own_values_still_become_flags():
    assert cli_message("delta=0.5 is too large for the matrix-free route (at its epsilon of "
                       "0.855)").startswith("--delta 0.5 is too large")
    assert "at most --rank 5 (asked: 8)" in cli_message(
        "A smaller rank would fit: at most rank=5 (asked: 8).")
    assert cli_message("Use route='matrix-free'") == "Use --route matrix-free"


def test_maxcut_error_names_a_share_not_the_flag(capsys):
    code = cli.main(["maxcut", "karate", "--epsilon", "1e-12", "--delta", "1e-6", "--route",
                     "randomized-response", "--seed", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "sampler=" not in err  # a Python-only option
    # an --epsilon in the message is the value passed, never an internal share of it
    assert set(re.findall(r"--epsilon (\S+)", err)) <= {"1e-12"}, err


# ----------------------------------------------------------------------------- 7. write_graph


def _labelled(mapping, base=None):
    return nx.relabel_nodes(nx.cycle_graph(4) if base is None else base, mapping)


@pytest.mark.parametrize("bad", ["\x00", "a\x01b", "x\x1b[0m", "\ufffe", "\ud800"])
@pytest.mark.parametrize("name", ["g.graphml", "g.xml", "g.graphml.gz"])
def test_graphml_refuses_characters_xml_does_not_allow(tmp_path, bad, name):
    G = _labelled({0: bad, 1: "a", 2: "b", 3: "c"})
    with pytest.raises(ValueError, match=r"GraphML \(XML\) cannot store node label"):
        write_graph(G, tmp_path / name, weight=None)
    assert not list(tmp_path.iterdir())  # refused before the file was opened
    check_labels_storable([bad], "gml")  # GML stores them


@pytest.mark.parametrize("fine", ["a\tb", "a\nb", "a\rb", "\x7f", "\x85", "é"])
def test_graphml_keeps_the_characters_xml_allows(tmp_path, fine):
    G = _labelled({0: fine, 1: "a", 2: "b", 3: "c"})
    write_graph(G, tmp_path / "g.graphml", weight=None)
    assert fine in read_graph(tmp_path / "g.graphml").labels


@pytest.mark.parametrize("name", ["g.txt", "g.csv", "g.txt.gz", "g.csv.gz", "g.tsv"])
@pytest.mark.parametrize("mapping,back", [
    ({0: 100, 1: 101, 2: 102, 3: "x"}, ("100", "101", "102", "x")),
    ({0: "x", 1: 100, 2: 101, 3: 102}, ("100", "101", "102", "x")),
    ({0: 1, 1: 2.5, 2: 3, 3: 4}, ("1", "2.5", "3", "4")),
    ({0: 2 ** 100, 1: 1, 2: 2, 3: 3}, ("1", str(2 ** 100), "2", "3"))],
    ids=["ints-then-name", "name-then-ints", "int-and-float", "beyond-int64"])
def test_mixed_labels_round_trip_as_strings(tmp_path, name, mapping, back):
    """[100, 101, 102, 'x'] was written without '# ids: str' and read back refused ('non-integer
    node id in a file of integer ids')."""
    G = _labelled(mapping)
    write_graph(G, tmp_path / name, weight=None)
    data = read_graph(tmp_path / name)
    assert data.labels == back
    edges = {frozenset((data.labels[i], data.labels[j])) for i, j, _ in zip(*data.edges())}
    assert edges == {frozenset((str(u), str(v))) for u, v in G.edges()}


def test_ids_line_is_written_only_where_needed():
    assert ids_comment([0, 1, 2]) is None and ids_comment(range(5)) is None
    assert ids_comment(["a", "b"]) is None and ids_comment([1.5, 2.5]) is None
    assert ids_comment([np.int64(3), 4]) is None and ids_comment([True, False]) is None
    for labels in (["007"], [100, "x"], ["x", 100], [1, 2.5], [2 ** 64]):
        assert ids_comment(labels).startswith("# ids: str"), labels


@pytest.mark.parametrize("name", ["g.graphml", "g.gml", "g.net"])
def test_an_edgeless_graph_round_trips_in_a_format_that_lists_nodes(tmp_path, name):
    G = _labelled({0: "a", 1: "b", 2: "c"}, nx.empty_graph(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)
        write_graph(G, tmp_path / name, weight=None)
    data = read_graph(tmp_path / name)
    assert data.n == 3 and data.m == 0 and set(data.labels) == {"a", "b", "c"}


@pytest.mark.parametrize("name", ["g.txt", "g.csv", "g.edgelist", "g.txt.gz"])
def test_an_edgeless_graph_in_an_edge_list_format_reads_back_on_its_nodes(tmp_path, name):
    """An edge list holds edges only: an edgeless graph gives a file that names no node. The
    writer says so and how to read it back; read_graph refuses it without nodes= (a
    NoEdgesError naming the option) and reads it on the public node set with it. Without
    that, a graph whose only edge is removed could not be read at all, while its neighbour
    could: the node set of edge-level privacy is public (docs/privacy.md 4)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_graph(nx.empty_graph(3), tmp_path / name, weight=None)
    said = [str(w.message) for w in caught if issubclass(w.category, GraphInputWarning)]
    assert any(re.search(r"no edges.*read_graph\(path, nodes=3\).*GraphML, GML or Pajek", m)
               for m in said), said
    with pytest.raises(NoEdgesError, match="nodes="):
        read_graph(tmp_path / name)
    data = read_graph(tmp_path / name, nodes=3)
    assert (data.n, data.m, tuple(data.labels)) == (3, 0, (0, 1, 2))
    named = read_graph(tmp_path / name, nodes=["a", "b"])
    assert (named.n, named.m, tuple(named.labels)) == (2, 0, ("a", "b"))


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "% a comment\n# another\n"])
def test_an_edge_list_without_data_lines_is_empty_not_of_unknown_format(tmp_path, text):
    """A comment line is no data: format detection said 'cannot tell the format' for a file
    of comments alone (what write_graph writes for an edgeless graph)."""
    path = tmp_path / "g.txt"
    path.write_text(text)
    with pytest.raises(NoEdgesError, match="the file is empty"):
        read_graph(path)
    assert read_graph(path, nodes=4).n == 4


def test_a_csv_header_without_rows_reads_on_its_nodes(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("# written elsewhere\nsource,target,weight\n")
    with pytest.raises(NoEdgesError, match="no edge rows"):
        read_graph(path)
    assert read_graph(path, nodes=2).m == 0


@pytest.mark.parametrize("fmt", ["gset", "mtx", "metis", "dimacs", "graphml", "gml", "pajek"])
def test_a_one_indexed_empty_file_is_still_refused(tmp_path, fmt):
    """gset, mtx, metis and dimacs state their node count in a header, and GraphML, GML and
    Pajek list their nodes: an empty file of those formats is malformed, not a graph without
    edges."""
    path = tmp_path / "g.txt"
    path.write_text("# nothing\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(path, nodes=3, format=fmt)
    assert not isinstance(info.value, NoEdgesError)


def test_the_command_reads_an_edgeless_edge_list_with_nodes(tmp_path, capsys):
    path = tmp_path / "g.txt"
    path.write_text("# no edges\n")
    assert cli.main(["info", str(path), "--nodes", "4"]) == 0
    assert "4 isolated" in capsys.readouterr().out
    assert cli.main(["info", str(path)]) != 0
    assert "--nodes N" in capsys.readouterr().err


def test_a_graph_with_edges_gets_no_edgeless_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)
        write_graph(nx.path_graph(3), tmp_path / "g.txt", weight=None)
        write_graph(nx.path_graph(3), tmp_path / "g.csv", weight=None)


@pytest.mark.parametrize("kw, exc", [({"duplicates": "bogus"}, ValueError),
                                     ({"ids": "bogus"}, ValueError),
                                     ({"symmetrize": "bogus"}, ValueError)])
def test_an_empty_edge_list_is_refused_for_the_options_its_neighbour_is(tmp_path, kw, exc):
    """A file without edges reads on nodes= without reaching its reader's own checks: the
    options are checked first, so that the same call is refused whether or not the file
    holds an edge (a refusal that depends on the edges tells two graphs apart)."""
    empty, one = tmp_path / "e.txt", tmp_path / "o.txt"
    empty.write_text("# no edges\n")
    one.write_text("0 1\n")
    for path in (empty, one):
        with pytest.raises(exc):
            read_graph(path, nodes=3, **kw)


def test_an_empty_edge_list_that_declares_arcs_needs_symmetrize(tmp_path):
    """'# Directed graph' is refused without symmetrize= whether or not an arc follows."""
    for body in ("", "0\t1\n"):
        path = tmp_path / f"d{len(body)}.txt"
        path.write_text("# Directed graph: x\n" + body)
        with pytest.raises(GraphFormatError, match="declares a directed graph"):
            read_graph(path, nodes=3)
        assert read_graph(path, nodes=3, symmetrize="max").n == 3


@pytest.mark.parametrize("n", [5, 600])
def test_an_edgeless_graph_has_the_exact_bound_zero(n):
    """``solve_max_cut(nx.empty_graph(600))`` raised "sparse certificate: could not verify any
    shift" (the sparse proof has nothing to verify on a zero matrix), and on 5 nodes the bound
    was 5e-324 (a sum of zeros moved one ulp up, though a float sum that rounds to 0 is
    exactly 0). Both solvers now return the exact bound 0."""
    for solve in (dpgraph.solve_max_cut, dpgraph.solve_max_bisection):
        res = solve(nx.empty_graph(n), rng=0)
        assert res.value == 0.0 and res.upper_bound == 0.0
        assert res.info["certificate"] == "exact (no edges)"
