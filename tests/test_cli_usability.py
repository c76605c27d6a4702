"""The command line speaks command-line: option spellings in errors, one-line warnings that
honour --quiet, synth's output formats and --delta note, info -q, the partition in --json,
the max2csp command and progress output. Each check runs the real command in a subprocess."""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpgraph
from dpgraph.io import read_graph
from dpgraph.progress import progress, report, reporting

ROOT = Path(dpgraph.__file__).resolve().parent.parent
SEEDED = ["--epsilon", "2", "--delta", "1e-6", "--seed", "1"]


def dpgraph_cmd(*argv, env=None, cwd=None):
    full_env = {k: v for k, v in os.environ.items() if k != "DPGRAPH_MEMORY_LIMIT"}
    full_env.update(OPENBLAS_NUM_THREADS="1", **(env or {}))
    done = subprocess.run([sys.executable, "-m", "dpgraph", *map(str, argv)],
                          capture_output=True, text=True, timeout=300, env=full_env,
                          cwd=str(cwd or ROOT))
    return done.returncode, done.stdout, done.stderr


def test_errors_name_the_command_options_not_python_arguments(tmp_path):
    heavy = tmp_path / "heavy.txt"
    heavy.write_text("4 3\n1 2 2\n2 3 1\n3 4 1\n")  # G-set with a weight of 2
    code, _, err = dpgraph_cmd("maxcut", heavy, *SEEDED)
    assert code == 2, err
    assert "--unweighted" in err and "weight=None" not in err


def test_option_errors_name_the_option(tmp_path, capsys):
    """In-process (argparse and the option checks, nothing is run): the option at fault, not
    the Python argument behind it."""
    from dpgraph.cli.app import main

    heavy = tmp_path / "heavy.wcnf"  # a clause weight max_2csp refuses
    heavy.write_text("p wcnf 3 2\n0.5 1 -2 0\n2 2 3 0\n")
    light = tmp_path / "light.wcnf"
    light.write_text("p wcnf 3 2\n0.5 1 -2 0\n1 2 3 0\n")
    weighted = tmp_path / "w.txt"  # an edge of weight 2
    weighted.write_text("0 1 2\n1 2 1\n2 0 1\n")
    for argv, message in [
            (["maxcut", "karate", "--epsilon", "1", "--delta", "1e-6", "--seed", "-1"],
             "argument --seed: must be a non-negative integer, got -1"),
            (["max2csp", "x.csp", "--epsilon", "1", "--seed", "abc"],
             "argument --seed: must be a non-negative integer, got 'abc'"),
            (["bench", "karate", "--epsilons", ""], "--epsilons must list at least one number"),
            (["bench", "karate", "--epsilons", "1", "--methods", ","],
             "--methods must list at least one method"),
            (["bench", "karate", "--epsilons", "1", "--plot", str(tmp_path / "no" / "x.png")],
             "cannot write --plot"),
            (["max2csp", str(heavy), "--epsilon", "1", "--delta", "1e-6"],
             f"{heavy}, line 3: constraint has weight 2"),
            (["max2csp", str(weighted), "--format", "max-k-cut", "--k", "3", "--epsilon", "1",
              "--delta", "0"], "--unweighted reads every edge as weight 1"),
            (["max2csp", str(light), "--epsilon", "1", "--route", "pca",
              "--delta", "0"], "leave --route at auto"),  # randomized response is pure
            (["max2csp", "karate", "--format", "max-k-cut", "--k", "1", "--epsilon", "1",
              "--delta", "0"], "--k must be")]:
        with pytest.raises(SystemExit) if "argument" in message else contextlib.nullcontext():
            assert main(argv) == 2
        assert message in capsys.readouterr().err, argv


def test_memory_refusal_names_the_limit_the_route_option_and_no_zero_edge_count():
    code, _, err = dpgraph_cmd("maxcut", "karate", "--epsilon", "1", "--delta", "1e-6",
                               "--route", "pca", "-q", env={"DPGRAPH_MEMORY_LIMIT": "1K"})
    assert code == 2
    assert "allowed by DPGRAPH_MEMORY_LIMIT=1K" in err
    assert "available on this machine" not in err
    assert "--route matrix-free" in err and "route='matrix-free'" not in err
    assert "~0 edges" not in err and "on 34 nodes" in err


def test_warnings_are_one_formatted_line_each_and_quiet_silences_them(tmp_path):
    loops = tmp_path / "loops.txt"
    loops.write_text("".join(f"{i} {j}\n" for i in range(12) for j in range(i + 1, 12)
                             if (i + j) % 3) + "5 5\n")  # a self-loop: a GraphInputWarning
    synth = ["synth", loops, *SEEDED, "-o", os.devnull, "--output-format", "snap"]
    code, out, err = dpgraph_cmd(*synth)
    assert code == 0, err
    warning_lines = [ln for ln in err.splitlines() if "warning" in ln.lower()]
    assert any(ln.startswith("dpgraph: warning: ") and "self-loop" in ln
               for ln in warning_lines), err
    # no raw Python warning: no category names with a source line, no traceback text
    assert "GraphInputWarning" not in err and "ReproducibleNoiseWarning" not in err
    assert "warnings.warn" not in err and "sys.exit(main())" not in err
    code, out, err = dpgraph_cmd(*synth, "-q")
    assert code == 0, err
    # only the notice that the release is not private (--seed) stays, in the same form
    assert [ln for ln in err.splitlines() if ln.startswith("dpgraph: warning:")] == [
        "dpgraph: warning: reproducible noise: not a private release (--seed was given; for "
        "tests and benchmarks only)"]
    assert "[dpgraph " not in err and "WARNING" not in err
    assert "reproducible noise" in out  # the result still says it is not a private release


def test_synth_writes_txt_as_an_edge_list_and_takes_output_format(tmp_path):
    out_txt = tmp_path / "syn.txt"
    code, out, err = dpgraph_cmd("synth", "karate", *SEEDED, "-o", out_txt)
    assert code == 0, err
    g = read_graph(out_txt)
    assert g.n > 0 and g.m > 0
    # the --delta note, as every command's notes: one "dpgraph: note:" line on stderr (the
    # default block model is pure epsilon-DP), none on stdout, none with --quiet
    assert "dpgraph: note: --delta 1e-06 is not used" in err
    assert "--delta" not in out
    code, out, err = dpgraph_cmd("synth", "karate", *SEEDED, "-o", out_txt, "-q")
    assert code == 0 and "note:" not in out + err
    out_dat = tmp_path / "syn.dat"
    code, out, err = dpgraph_cmd("synth", "karate", *SEEDED, "-o", out_dat,
                                 "--output-format", "gml", "--json", "-q")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["output"]["file"] == str(out_dat) and doc["ledger"]["spent"]["delta"] == 0
    assert any("--delta" in note and "pure" in note for note in doc["notes"])
    assert out_dat.read_text().lstrip().startswith("graph")  # GML, not the extension's guess
    assert read_graph(out_dat, format="gml").m == doc["output"]["edges"]
    code, _, err = dpgraph_cmd("synth", "karate", "--epsilon", "2", "-o", tmp_path / "x.weird")
    assert code == 2 and "--output-format" in err and "format=" not in err


def test_edge_list_with_a_stray_token_is_refused_and_ids_str_reads_it(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n2 3\n3 x\n4 1\n")
    code, out, err = dpgraph_cmd("info", bad)
    assert code == 2 and out == ""
    assert f"{bad}, line 3" in err and "'x'" in err and "--ids str" in err
    code, out, err = dpgraph_cmd("info", bad, "--ids", "str")
    assert code == 0 and "nodes:       5" in out, err


def test_ids_with_a_data_set_name_is_refused_not_ignored(tmp_path, capsys):
    """`dpgraph maxcut karate --ids str` ran with --ids ignored (and --format): a data set is
    read as registered, so both are refused as --duplicates is, except --ids as a --nodes
    file's id rule."""
    from dpgraph.cli.app import main

    for argv in (["maxcut", "karate", "--epsilon", "1", "--delta", "0", "-q"],
                 ["info", "karate", "-q"], ["info", "karate", "--nodes", "34", "-q"]):
        assert main([*argv, "--ids", "str"]) == 2
        err = capsys.readouterr().err
        assert "--ids applies to graph files" in err and "'karate'" in err
    assert main(["maxcut", "karate", "--epsilon", "1", "--delta", "0", "-q", "--format",
                 "csv"]) == 2
    assert "--format applies to graph files" in capsys.readouterr().err
    # max2csp calls the graph's format --graph-format (its --format is the instance's)
    assert main(["max2csp", "karate", "--k", "3", "--format", "max-k-cut", "--graph-format",
                 "snap", "--epsilon", "1", "--delta", "0", "-q"]) == 2
    err = capsys.readouterr().err
    assert "--graph-format applies to graph files" in err and "--format applies" not in err
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("\n".join(map(str, range(34))) + "\n")
    assert main(["info", "karate", "--nodes", str(nodes), "--ids", "int", "-q"]) == 0
    assert "nodes:       34" in capsys.readouterr().out


def test_info_accepts_quiet():
    code, out, err = dpgraph_cmd("info", "florentine", "-q")
    assert code == 0, err
    assert "nodes:       15" in out and err == ""


def test_cut_json_carries_the_partition(tmp_path):
    part = tmp_path / "part.tsv"
    code, out, err = dpgraph_cmd("maxcut", "florentine", *SEEDED, "--json", "-q", "-o", part)
    assert code == 0, err
    p = json.loads(out)["partition"]
    assert sorted(p["nodes"]) == sorted(__import__("networkx").florentine_families_graph())
    assert set(p["sides"]) <= {0, 1} and len(p["sides"]) == len(p["nodes"])
    assert [p["sides"].count(0), p["sides"].count(1)] == p["sizes"]
    written = dict(line.split("\t") for line in part.read_text().splitlines())
    assert {k: int(v) for k, v in written.items()} == dict(zip(p["nodes"], p["sides"]))


def test_max2csp_command(tmp_path):
    cnf = tmp_path / "f.cnf"
    cnf.write_text("c a small Max-2-SAT\np cnf 6 8\n1 2 0\n-1 3 0\n2 -3 0\n-4 1 0\n3 4 0\n"
                   "5 -6 0\n-5 6 0\n4 6 0\n")
    code, out, err = dpgraph_cmd("max2csp", cnf, *SEEDED, "--json", "-q")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "dpgraph.csp/1" and doc["instance"]["format"] == "cnf"
    assert doc["assignment"]["variables"] == [1, 2, 3, 4, 5, 6]
    assert set(doc["assignment"]["values"]) <= {0, 1}
    assert doc["ledger"]["spent"]["epsilon"] <= 2 + 1e-9
    assert "constraints" not in doc["instance"]  # the constraint count is private
    graph = tmp_path / "g.txt"
    graph.write_text("".join(f"n{i} n{j}\n" for i in range(10) for j in range(i + 1, 10)
                             if (i * j) % 4 != 1))
    out_file = tmp_path / "assignment.tsv"
    code, out, err = dpgraph_cmd("max2csp", graph, "--format", "max-k-cut", "--k", "3",
                                 *SEEDED, "-o", out_file)
    assert code == 0, err
    # the default (local) route releases labels, not a weighted instance: no SDP bound line
    assert "route:             local" in out and "privacy ledger:" in out
    rows = [line.split("\t") for line in out_file.read_text().splitlines()]
    assert sorted(r[0] for r in rows) == sorted(f"n{i}" for i in range(10))  # labels kept
    assert {r[1] for r in rows} <= {"0", "1", "2"}
    code, _, err = dpgraph_cmd("max2csp", graph, "--format", "max-k-cut", *SEEDED)
    assert code == 2 and "--k" in err
    # a csp file on a dense route: the JSON names the relation size the release used (q^2)
    csp = tmp_path / "i.csp"
    csp.write_text("p csp 6 3 3\nc 0 1 1 0,1 1,0\nc 2 3 1 0,0\nc 4 5 0.5 1,2 2,1 0,0\n")
    code, out, err = dpgraph_cmd("max2csp", csp, *SEEDED, "--route", "randomized-response",
                                 "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["instance"]["relation_size"] == 9


def test_progress_lines_when_piped():
    code, out, err = dpgraph_cmd("synth", "planted-cut-n200-d16", "--epsilon", "2",
                                 "--seed", "1", "-o", "/dev/null", "--output-format", "snap")
    assert code == 0, err
    assert "communities: label passes: started (2 sweeps)" in err
    assert "\r" not in err  # plain lines, no bar redrawn in place
    assert any("label passes: 2/2 done in" in ln and ("sweep/s" in ln or "s/sweep" in ln)
               for ln in err.splitlines()), err
    assert "sampling: edge draws: started" in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_in_a_terminal_has_rate_and_eta():
    stream = _Terminal()
    with reporting(stream=stream):
        for _ in progress(range(4), desc="rounds", unit="round"):
            pass
        report("next stage")
    text = stream.getvalue()
    assert "\r" in text and "|" in text and "4/4" in text and "ETA" in text
    assert "round/s" in text or "s/round" in text
    assert text.splitlines()[-1].endswith("] next stage")  # a report ends the bar line first


def test_fast_progress_rates_are_thousands_separated_not_exponents():
    buf = io.StringIO()
    with reporting(stream=buf):
        for _ in progress(range(20000), desc="rounds", unit="round", interval=3600):
            pass
    last = buf.getvalue().splitlines()[-1]
    assert "e+" not in last and "round/s" in last, last
    assert re.search(r"\d,\d{3} round/s", last), last


def test_progress_is_silent_when_reporting_is_off():
    items = list(progress(iter(range(3)), desc="x"))
    assert items == [0, 1, 2]
    buf = io.StringIO()
    with reporting(enabled=False, stream=buf):
        assert list(progress(range(2))) == [0, 1]
    assert buf.getvalue() == ""


def test_plain_progress_lines_respect_the_interval():
    buf = io.StringIO()
    with reporting(stream=buf):
        for _ in progress(range(50), desc="steps", interval=3600):
            pass
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2 and "steps: started (50 iterations)" in lines[0]
    assert "steps: 50/50 done in" in lines[1]


def test_solver_loops_report_their_iterations():
    import networkx as nx

    from dpgraph.engine import as_weight_operator
    from dpgraph.engine.sdp import solve_lowrank_sdp

    buf = io.StringIO()
    with reporting(stream=buf):
        sol = solve_lowrank_sdp(as_weight_operator(nx.petersen_graph()), rng=0)
    lines = buf.getvalue().splitlines()
    assert "SDP solve (10 variables, Burer-Monteiro): started" in lines[0]
    assert f"{sol.iterations:,} iterations done in" in lines[-1] and "it/s" in lines[-1]
    quiet = io.StringIO()
    with reporting(enabled=False, stream=quiet):
        solve_lowrank_sdp(as_weight_operator(nx.petersen_graph()), rng=0)
    assert quiet.getvalue() == ""
