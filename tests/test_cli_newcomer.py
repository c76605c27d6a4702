"""What a new user of the command meets: help that describes the route that runs (and a note
when an option is not used by it), ``bench`` without matplotlib, ``max2csp`` on a data set
name, intervals that are never a point, a closed pipe that ends quietly, and numbers and counts
written one way."""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import dpgraph
from dpgraph.cli.app import CLOSED_PIPE_STATUS, main
from dpgraph.cli.text import interval, number
from dpgraph.progress import Progress, progress, reporting

ROOT = Path(dpgraph.__file__).resolve().parent.parent
SEEDED = ["--epsilon", "1", "--delta", "1e-6", "--seed", "1"]


def _help(capsys, *command) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*command, "--help"])
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's line wrapping undone


def _json(capsys, *argv) -> tuple:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def _env():
    env = {k: v for k, v in os.environ.items() if k != "DPGRAPH_MEMORY_LIMIT"}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    return env


# ----------------------------------------------------------------------------- help and notes


@pytest.mark.parametrize("command", ["maxcut", "bisection"])
def test_cut_help_describes_the_route_that_runs_and_the_rank_it_ignores(capsys, command):
    text = _help(capsys, command)
    doc, err = _json(capsys, command, "karate", *SEEDED)
    # what ran: the local route, with no SDP bound and no rank
    assert doc["route"] == "local" and doc["sdp_bound"] is None and doc["rank"] is None
    assert "the degree-ordered local route answers" in text
    assert "no SDP bound" in text and "--rank is not used" in text
    assert "Not used by the local route" in text  # --rank's own help
    assert "sum-of-squares" not in text.split("The matrix-free route")[0]  # not the default
    assert doc["notes"] == [] and "dpgraph: note:" not in err


def test_rank_on_the_local_route_is_noted_on_stderr_and_in_json(capsys):
    doc, err = _json(capsys, "maxcut", "karate", *SEEDED, "--rank", "4")
    assert doc["route"] == "local"
    notes = [ln for ln in err.splitlines() if ln.startswith("dpgraph: note:")]
    assert len(notes) == 1 and "--rank 4 is not used" in notes[0] and "local route" in notes[0]
    assert doc["notes"] == [notes[0].removeprefix("dpgraph: note: ")]
    code = main(["maxcut", "karate", *SEEDED, "--rank", "4", "-q"])
    assert code == 0 and "note" not in capsys.readouterr().err  # --quiet silences it
    # a route that uses the rank: no note
    doc, err = _json(capsys, "maxcut", "karate", *SEEDED, "--rank", "4",
                     "--route", "randomized-response")
    assert doc["route"] == "randomized-response" and doc["rank"] == 4
    assert doc["notes"] == [] and "dpgraph: note:" not in err


@pytest.mark.parametrize("command", ["maxcut", "max2csp", "synth"])
def test_delta_help_states_the_range_the_check_accepts(capsys, command):
    text = _help(capsys, command)
    assert "(0, 1)" not in text
    code = main(["maxcut", "karate", "--epsilon", "1", "--delta", "1", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    accepted = re.search(r"must lie in (\[0, 1\))", err).group(1)  # what the check says
    assert f"delta, in {accepted}" in text


def test_delta_zero_runs_the_local_route_as_the_help_says(capsys):
    assert "0 asks for pure epsilon-DP (auto then takes the local route" in _help(capsys, "maxcut")
    doc, _ = _json(capsys, "maxcut", "karate", "--epsilon", "1", "--delta", "0", "--seed", "1")
    assert doc["route"] == "local" and doc["ledger"]["spent"]["delta"] == 0


def test_synth_route_help_does_not_describe_the_cut_routes(capsys):
    text = _help(capsys, "synth")
    route_help = text.split("--route")[-1]
    assert "local route" not in route_help.split("with --delta 0")[0]
    assert "pca if so, else randomized-response" in text


def test_max2csp_help_and_notes_match_the_route(capsys, tmp_path):
    text = _help(capsys, "max2csp")
    assert "By default (--route auto) the degree-ordered local route" in text
    assert "--rank and --relation-size are not used" in text
    base = ["max2csp", "planted-cut-n200-d16", "--k", "3", *SEEDED]
    doc, err = _json(capsys, *base, "--rank", "4", "--relation-size", "6")
    assert doc["route"] == "local" and doc["sdp_bound"] is None
    notes = [ln.removeprefix("dpgraph: note: ") for ln in err.splitlines()
             if ln.startswith("dpgraph: note:")]
    assert notes == doc["notes"] and len(notes) == 2
    assert notes[0].startswith("--rank 4 is not used") and notes[1].startswith("--relation-size 6")
    # --route pca uses both: no note, and it prints what the help says it prints
    code = main([*base, "--route", "pca", "--rank", "2", "--relation-size", "6"])
    out, err = capsys.readouterr()
    assert code == 0 and "dpgraph: note:" not in err
    assert "route:             pca" in out and "SDP bound:" in out


# ----------------------------------------------------------------------------- bench


def _without_matplotlib(*argv, cwd):
    """``dpgraph *argv`` in a subprocess where ``import matplotlib`` fails."""
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from dpgraph.cli import main\n"
            f"sys.exit(main({list(map(str, argv))!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=_env(), cwd=str(cwd))
    return done.returncode, done.stdout, done.stderr


def test_bench_needs_matplotlib_only_for_plot_and_names_a_missing_file_first(tmp_path):
    code, out, err = _without_matplotlib("bench", "planted-cut-n200-d16", "--epsilons", "1",
                                         "--seeds", "1", "--methods", "random", "-q",
                                         cwd=tmp_path)
    assert code == 0, err
    assert "median over 1 seed\n" in out and "random" in out and "plot" not in out
    assert list(tmp_path.iterdir()) == []  # no PNG written without --plot
    code, _, err = _without_matplotlib("bench", "missing.txt", "--plot", "b.png", cwd=tmp_path)
    assert code == 2
    assert "missing.txt" in err and "matplotlib" not in err and "Traceback" not in err
    code, _, err = _without_matplotlib("bench", "karate", "--plot", "b.png", cwd=tmp_path)
    assert code == 2 and "matplotlib" in err and "--plot" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- max2csp


def test_max2csp_takes_a_data_set_name_as_the_other_commands_do(capsys, tmp_path):
    name = "planted-cut-n200-d16"
    doc, _ = _json(capsys, "max2csp", name, "--k", "3", *SEEDED)
    assert doc["instance"]["variables"] == 200 and doc["instance"]["values"] == 3
    assert doc["instance"]["source"].startswith(name)
    # the bundled file itself gives the same instance, so the same seeded answer
    path = tmp_path / f"{name}.txt"
    path.write_bytes((Path(dpgraph.datasets.__file__).parent / "data" / path.name).read_bytes())
    from_file, _ = _json(capsys, "max2csp", str(path), "--k", "3", *SEEDED)
    assert [str(v) for v in from_file["assignment"]["variables"]] == \
        [str(v) for v in doc["assignment"]["variables"]]
    assert from_file["assignment"]["values"] == doc["assignment"]["values"]
    assert from_file["estimated_value"] == doc["estimated_value"]
    code = main(["max2csp", "karate", *SEEDED])  # a graph, but no --k: say what fits
    assert code == 2 and "--k" in capsys.readouterr().err
    code = main(["max2csp", "no-such-instance", "--k", "3", *SEEDED])
    assert code == 2 and "neither a file nor a data set name" in capsys.readouterr().err


# ----------------------------------------------------------------------------- intervals


@pytest.mark.parametrize("graph", [nx.Graph([(1, 2), (2, 3), (1, 3)]), nx.complete_graph(4)],
                         ids=["triangle", "K4"])
def test_interval_on_a_tiny_graph_is_never_a_point_and_covers(graph):
    runs, covered = 100, 0
    for seed in range(runs):
        res = dpgraph.max_cut(graph, epsilon=1.0, delta=1e-6, rng=seed)
        lo, hi = res.estimate_interval
        if min(map(len, res.partition)) == 0:  # one side empty: it cuts nothing, certainly
            assert lo == hi == res.estimated_value == 0.0
        else:
            assert lo < hi and lo <= res.estimated_value <= hi
        true = sum(res.assignment[u] != res.assignment[v] for u, v in graph.edges())
        covered += lo <= true <= hi
    level = 0.95
    assert covered >= runs * level - 3 * math.sqrt(runs * level * (1 - level))


def test_csp_interval_on_a_tiny_instance_is_never_a_point():
    from dpgraph.engine import CSPInstance

    differ = {(0, 1), (1, 0)}
    inst = CSPInstance(3, 2, [(0, 1, differ, 1.0), (1, 2, differ, 1.0), (0, 2, differ, 1.0)])
    for seed in range(150):  # clamping the ends apart gave [0, 0] at seed 83
        res = dpgraph.max_2csp(inst, epsilon=1.0, delta=1e-6, rng=seed)
        lo, hi = res.estimate_interval
        assert lo < hi and lo <= res.estimated_value <= hi


def test_clamped_interval_keeps_the_laplace_coverage_and_a_width():
    """Distributional check of the interval's construction, independent of the solver: true
    values across [0, U], Laplace draws, the stated 95% level."""
    from dpgraph.solve.candidates import clamped_interval

    rng = np.random.default_rng(0)
    upper, b = 6.0, 10.0
    t = b * math.log(20.0)
    truth = rng.uniform(0, upper, 20000)
    noisy = truth + rng.laplace(0, b, truth.size)
    cover, narrowest = 0, math.inf
    for x, y in zip(truth, noisy):
        value, (lo, hi) = clamped_interval(y, t, upper)
        assert 0 <= lo <= value <= hi <= upper
        cover += lo <= x <= hi
        narrowest = min(narrowest, hi - lo)
    assert narrowest >= min(t, upper) - 1e-12
    assert cover / truth.size >= 0.95


def test_cli_prints_the_triangle_interval_with_two_ends(capsys, tmp_path):
    path = tmp_path / "triangle.txt"
    path.write_text("1 2\n2 3\n1 3\n")
    for seed in (26, 36, 58, 1):  # 26, 36, 58 printed [0, 0] when the ends were clamped apart
        assert main(["maxcut", str(path), "--epsilon", "1", "--delta", "1e-6", "--seed",
                     str(seed), "-q"]) == 0
        line = next(ln for ln in capsys.readouterr().out.splitlines()
                    if ln.startswith("private estimate:"))
        lo, hi = re.search(r"interval \[([^,]+), ([^\]]+)\]", line).groups()
        assert float(lo) < float(hi), line


def test_printed_intervals_round_outward_and_keep_two_ends():
    rng = np.random.default_rng(1)
    for _ in range(2000):
        lo = float(rng.choice([0.0, 1.0, 1e3, 1e6])) * rng.random() + rng.random()
        hi = lo + float(rng.choice([1e-6, 0.3, 30.0, 3e4])) * rng.random()
        a, b = (float(s.replace(",", "")) for s in interval(lo, hi)[1:-1].split(", "))
        assert a <= lo and b >= hi  # the printed interval contains the computed one
        assert (a < b) == (lo < hi)
    assert interval(1224450.2, 1224450.7) == "[1,224,450, 1,224,451]"


# ----------------------------------------------------------------------------- closed pipe


@pytest.mark.parametrize("argv, stderr_too", [
    (["info", "karate"], False),
    (["maxcut", "karate", "--epsilon", "1", "--delta", "1e-6", "--json"], True),
])
def test_closed_pipe_ends_quietly(argv, stderr_too):
    proc = subprocess.Popen([sys.executable, "-m", "dpgraph", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if stderr_too else subprocess.PIPE,
                            env=_env(), cwd=str(ROOT))
    proc.stdout.close()  # the reader goes away before the first line (`| head -0`)
    err = b"" if stderr_too else proc.stderr.read()
    code = proc.wait(timeout=300)
    if not stderr_too:
        proc.stderr.close()
    # the status of a command ended by SIGPIPE, and nothing said about it
    assert code == CLOSED_PIPE_STATUS == 141, err
    assert b"Traceback" not in err and b"Errno 32" not in err and b"Broken pipe" not in err


def test_closed_pipe_after_the_first_line():
    """``dpgraph info karate | head -1``: the first line arrives, then the pipe closes."""
    proc = subprocess.Popen([sys.executable, "-m", "dpgraph", "info", "karate"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                            cwd=str(ROOT))
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    code = proc.wait(timeout=300)
    proc.stderr.close()
    assert first.startswith(b"graph:")
    assert code in (0, CLOSED_PIPE_STATUS) and err == b""  # 0: all was written before


# ----------------------------------------------------------------------------- words, numbers


def test_numbers_are_thousands_separated_never_exponents():
    assert number(1999985) == "1,999,985" and number(1224451.6) == "1,224,452"
    assert number(61.54486) == "61.5449" and number(3.0) == "3"
    for v in (1e6 + 0.3, 1.22445e6, 987654321.0):
        assert "e+" not in number(v) and "," in number(v)


def test_progress_counts_are_pluralised():
    import io

    buf = io.StringIO()
    with reporting(stream=buf):
        for _ in progress(range(1), desc="one", unit="round"):
            pass
        for _ in progress(iter(range(7)), total=None, desc="seven", unit="round"):
            pass
        with Progress(desc="solve", unit="it") as bar:
            bar.update(1200)
    text = buf.getvalue()
    assert "one: started (1 round)" in text and "(1 rounds)" not in text
    assert "seven: 7 rounds done in" in text and "7 round done" not in text
    assert "solve: 1,200 iterations done in" in text
