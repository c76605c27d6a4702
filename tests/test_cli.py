"""The dpgraph command: info output checked against NetworkX, error handling, extensibility."""

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

from dpgraph.cli import app as cli
from dpgraph.cli import commands
from dpgraph.io import write_graph


def _run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _field(out, name):
    for line in out.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name} line in {out!r}")


def test_info_karate_matches_networkx(capsys):
    code, out, err = _run(capsys, "info", "karate")
    assert code == 0 and err == ""
    G = nx.karate_club_graph()
    deg = np.array([d for _, d in G.degree()])
    assert _field(out, "nodes") == "34" and _field(out, "edges") == "78"
    assert _field(out, "degree") == (f"min {deg.min()}, median {np.median(deg):g}, "
                                     f"mean {deg.mean():.6g}, max {deg.max()}")
    assert _field(out, "components") == "1"
    assert _field(out, "weights").startswith("[1, 1] (unweighted)")


def test_info_file_with_isolated_nodes_and_signed_weights(capsys, tmp_path):
    G = nx.Graph()
    G.add_nodes_from(range(6))
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, -1.0), (3, 4, 2.0)])
    path = tmp_path / "g.txt"
    write_graph(G, path, format="gset")
    code, out, _ = _run(capsys, "info", str(path))
    assert code == 0
    assert _field(out, "format") == "gset"
    assert (_field(out, "nodes"), _field(out, "edges")) == ("6", "3")
    assert _field(out, "weights").startswith("[-1, 2] (signed)")
    assert _field(out, "components") == f"{nx.number_connected_components(G)} (1 isolated node)"
    code, out, _ = _run(capsys, "info", str(path), "--format", "gset")
    assert code == 0


@pytest.mark.parametrize("content, fragment", [
    ("4 3\n1 2 1\n", "line 1"),          # header disagrees with body
    ("4 1\n1 9 1\n", "line 2"),          # vertex above n
    ("", "empty"),
])
def test_bad_file_is_one_line_exit_2(capsys, tmp_path, content, fragment):
    path = tmp_path / "bad.txt"
    path.write_text(content)
    code, out, err = _run(capsys, "info", str(path), "--format", "gset")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("dpgraph: error: ")
    assert str(path) in err and fragment in err and "Traceback" not in err


def test_missing_dataset_and_unknown_name(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("DPGRAPH_DATA", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code, _, err = _run(capsys, "info", "G81")
    assert code == 2 and "never downloads" in err and err.count("\n") == 1
    code, _, err = _run(capsys, "info", "no-such-thing")
    assert code == 2 and "neither a file nor a data set" in err


def test_unknown_extension_exit_2(capsys, tmp_path):
    path = tmp_path / "g.weird"
    path.write_text("1 2\n")
    code, _, err = _run(capsys, "info", str(path))
    assert code == 2 and "unknown file extension" in err and "--format one of" in err


def test_usage_errors_exit_2():
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        cli.main(["info", "karate", "--format", "xyz"])
    assert info.value.code == 2


def test_commands_follow_the_pair_convention(monkeypatch, capsys):
    for name, add, run in commands.COMMANDS:
        module = sys.modules[run.__module__]
        assert module is sys.modules[add.__module__] and module is not cli
        assert add is getattr(module, f"add_{name}_parser") and run is getattr(module, f"cmd_{name}")

    def _add_hello_parser(subparsers):
        p = subparsers.add_parser("hello")
        p.add_argument("who")
        return p

    def _cmd_hello(args):
        print(f"hello {args.who}")
        return 0

    monkeypatch.setattr(commands, "COMMANDS",
                        commands.COMMANDS + [("hello", _add_hello_parser, _cmd_hello)])
    code, out, _ = _run(capsys, "hello", "world")
    assert code == 0 and out == "hello world\n"


def test_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "dpgraph", "info", "florentine"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "nodes:       15" in done.stdout


def test_info_real_g81(capsys, data_dir, monkeypatch):
    monkeypatch.setenv("DPGRAPH_DATA", str(data_dir))
    code, out, _ = _run(capsys, "info", "G81")
    assert code == 0
    assert (_field(out, "nodes"), _field(out, "edges")) == ("20,000", "40,000")
    assert _field(out, "weights").startswith("[-1, 1] (signed)")
    assert _field(out, "degree") == "min 4, median 4, mean 4, max 4"
