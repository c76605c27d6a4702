"""dpgraph's private synthetic graphs against the PGB generators, on PGB's 15 queries.

NOT PRIVATE scoring (benchmarks/pgb_queries.py reads the true graph): benchmark use only.

Generators, each run as its own process on the graph's edge list, timed and measured the same
way (wall time and peak RSS of the whole process from ``/usr/bin/time``, Python start-up and
I/O included; ``generate_s`` is the generation step alone, as each wrapper reports it):

- ``dpgraph``: ``dpgraph.release_synthetic(G, epsilon=epsilon).sample()`` (pure epsilon-DP);
- ``privatize``: ``dpgraph.privatize(G, epsilon=epsilon, delta=1e-6).sample()``;
- ``dpgraph_v2``: ``release_synthetic`` with the keyword arguments of the JSON object in
  ``$DPGRAPH_V2_KWARGS`` (a candidate change, measured next to the default with ``compare
  --new-method dpgraph_v2``);
- the peers, from ``$PEERS`` (default ``/work/shared/peers``; README.md and PATCHES.md there),
  run with their own venv (``$PEERS_PYTHON``, default ``/tmp/peersvenv/bin/python``): ``tmf``
  (TmF), ``dpdk`` (PGB's DP-1K), ``privskg`` (PrivSKG), ``privgraph`` (PGB's copy of PrivGraph),
  ``privgraph_orig`` (the authors' PrivGraph), ``privhrg`` (PrivHRG: chameleon only, it is slow
  and ignores the seed). ``dpdk`` and ``privskg`` are not private as published (PATCHES.md:
  DP-1K's histogram range is the true maximum degree, PrivSKG's triangle estimate multiplies by
  the true degrees); the tables mark them with ``*``.

Results go to ``benchmarks/out/peers/results.jsonl`` (``$DPGRAPH_PEERS_OUT`` overrides the
folder), one line per (graph, method, epsilon,
seed) cell as soon as it is scored: a sweep that stops is resumed by running the same command
again (cells already in the file are skipped). ``summary`` reads that file only, or the files
given with ``--results``: the runs behind BENCHMARKS.md are
``benchmarks/results/synthetic_peers.jsonl``.

Usage (repository root, DPGRAPH_DATA set):
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_synthetic.py \
        run --graphs chameleon,facebook,ca-hepph --epsilons 0.1,0.5,1,2,4 --seeds 0-9
    PYTHONPATH=. python benchmarks/bench_synthetic.py summary
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _lazy_module(name: str):
    """``name`` imported on its first attribute access (importlib's LazyLoader): the
    ``generate`` subcommand, whose peak RSS the tables report, never touches the scoring module
    (igraph and matplotlib), as the peers' wrappers load only their generators."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


pq = _lazy_module("pgb_queries")

OUT = Path(os.environ.get("DPGRAPH_PEERS_OUT",
                        Path(__file__).resolve().parent / "out" / "peers"))
DATA = Path(os.environ.get("DPGRAPH_DATA", "/work/shared/datasets")) / "social"
PEERS = Path(os.environ.get("PEERS", "/work/shared/peers"))
PEERS_PYTHON = os.environ.get("PEERS_PYTHON", "/tmp/peersvenv/bin/python")
OURS = ("dpgraph", "privatize", "dpgraph_v2")
PEER_METHODS = ("tmf", "dpdk", "privskg", "privgraph", "privgraph_orig", "privhrg")
NOT_PRIVATE_AS_WRITTEN = {"dpdk", "privskg"}
# one quantity (n is exact): TmF spends half of epsilon on it, so the summary also counts
# the cells without it
EDGE_COUNT_QUERIES = ("q2_edges_re", "q4_avg_degree_re")
# PGB's TmF keeps every true edge that passes its threshold and fills the rest at random, so
# one pair's chance to be released moves by e^1.8-e^4.7 on the shared graphs at eps 0.1-4
# (check_tmf_privacy.py): as written it spends more than the epsilon it is given
SPENDS_MORE_THAN_GIVEN = {"tmf"}
# the peer sets the summary scores against: (label, peers left out)
PEER_SETS = (("every peer", ()), ("peers private as published", NOT_PRIVATE_AS_WRITTEN),
             ("peers that keep their epsilon", NOT_PRIVATE_AS_WRITTEN | SPENDS_MORE_THAN_GIVEN))
ONLY_ON = {"privhrg": {"chameleon"}}
LABEL = {"dpgraph": "dpgraph", "privatize": "privatize", "dpgraph_v2": "dpgraph_v2",
         "tmf": "TmF", "dpdk": "DP-1K*",
         "privskg": "PrivSKG*", "privgraph": "PrivGraph (PGB)",
         "privgraph_orig": "PrivGraph (orig.)", "privhrg": "PrivHRG"}
SCORE_SEED = 0  # Louvain and max-cut seeds of the scoring: the same for every generator
MIN_PEERS = 4  # a (graph, epsilon) enters the summary once TmF, DP-1K, PrivSKG, PrivGraph ran


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- graphs


def read_edgelist(path):
    """``(ids, edges)``: sorted node ids and (m, 2) index pairs ``a < b`` (self-loops and
    repeats dropped; '#'/'%' lines skipped). Index i is the i-th smallest id, the mapping the
    peers' wrappers use, so their output ids map back to the same indices."""
    rows = []
    with open(path) as fh:
        for line in fh:
            s = line.split()
            if s and s[0][0] not in "#%":
                rows.append((int(s[0]), int(s[1])))
    e = np.asarray(rows, dtype=np.int64)
    ids = np.unique(e)
    a, b = np.searchsorted(ids, e[:, 0]), np.searchsorted(ids, e[:, 1])
    keep = a != b
    lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    return ids, np.unique(np.stack([lo, hi], axis=1), axis=0)


def output_graphs(path, ids, n_generated):
    """A generator's output edge list (in the input's ids) as (own, aligned) adjacencies:
    ``own`` on the generator's ``n_generated`` nodes (ids the input lacks take the indices
    after n, in increasing id order), ``aligned`` on the input's n nodes (pgb_queries)."""
    n = ids.size
    raw = np.loadtxt(path, dtype=np.int64, ndmin=2) if os.path.getsize(path) else \
        np.zeros((0, 2), dtype=np.int64)
    flat = raw.ravel()
    pos = np.searchsorted(ids, flat)
    known = (pos < n) & (ids[np.minimum(pos, n - 1)] == flat)
    fresh = np.unique(flat[~known])
    idx = np.where(known, pos, n + np.searchsorted(fresh, flat)).reshape(-1, 2)
    n_own = max(int(n_generated), n + fresh.size if fresh.size else 0,
                int(idx.max()) + 1 if idx.size else 0)
    own = pq.adjacency(n_own, idx)
    inside = (idx < n).all(axis=1)
    aligned = own if n_own == n else pq.adjacency(n, idx[inside])
    return own, aligned


# ----------------------------------------------------------------------------- generators


def generate_ours(method, inp, eps, seed, out):
    """Run one dpgraph generator on an edge list and write its sample (the ``generate``
    subcommand, run as its own process). One JSON line on stdout, as the peers' wrappers."""
    import warnings

    import dpgraph
    from dpgraph.graph import from_matrix

    warnings.simplefilter("ignore")  # seeded runs warn (benchmarks are reproducible)
    import scipy.sparse as sp

    ids, edges = read_edgelist(inp)  # index pairs a < b, no repeats: the symmetric 0/1 matrix
    A = sp.coo_array((np.ones(2 * len(edges)), (np.r_[edges[:, 0], edges[:, 1]],
                                                 np.r_[edges[:, 1], edges[:, 0]])),
                     shape=(ids.size, ids.size)).tocsr()
    data = from_matrix(A, range(ids.size), source=Path(inp).stem)
    gen = np.random.default_rng(1000 * seed + 17)
    t0 = time.perf_counter()
    if method == "dpgraph":
        rel = dpgraph.release_synthetic(data, epsilon=eps, rng=gen)
    elif method == "dpgraph_v2":
        rel = dpgraph.release_synthetic(data, epsilon=eps, rng=gen,
                                        **json.loads(os.environ.get("DPGRAPH_V2_KWARGS", "{}")))
    else:
        rel = dpgraph.privatize(data, epsilon=eps, delta=1e-6, rng=gen)
    S = rel.sample(rng=gen)
    secs = time.perf_counter() - t0
    C = __import__("scipy.sparse", fromlist=["triu"]).triu(S.weights, 1).tocoo()
    np.savetxt(out, np.column_stack([ids[C.row], ids[C.col]]), fmt="%d")
    print(json.dumps({"algo": method, "epsilon": eps, "seed": seed, "n_in": ids.size,
                      "m_in": int(len(edges)), "n_generated": S.n, "m_out": int(C.nnz),
                      "generate_s": secs, "ledger_epsilon": rel.ledger.spent[0],
                      "ledger_delta": rel.ledger.spent[1]}))


def _command(method, inp, eps, seed, out):
    if method in OURS:
        return [sys.executable, __file__, "generate", method, str(inp), str(eps), str(seed),
                str(out)]
    if method == "privgraph_orig":
        return [PEERS_PYTHON, str(PEERS / "run_privgraph.py"), str(inp), str(eps), str(seed),
                str(out)]
    return [PEERS_PYTHON, str(PEERS / "run_pgb.py"), method, str(inp), str(eps), str(seed),
            str(out)]


def run_generator(method, inp, eps, seed, out, timeout):
    """Run one generator under ``/usr/bin/time -v``: its JSON line, wall seconds, peak RSS."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *_command(method, inp, eps, seed, out)],
                          capture_output=True, text=True, env=env, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{method} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    info = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return info, wall, rss / 1024.0


# ----------------------------------------------------------------------------- sweep


def true_stats(name, ids, edges):
    """The true graph's :func:`pgb_queries.true_statistics`, cached in ``OUT`` (NOT PRIVATE)."""
    cache = OUT / f"true_{name}.pkl"
    if cache.exists():
        with open(cache, "rb") as fh:
            return pickle.load(fh)
    A = pq.adjacency(ids.size, edges)
    ts = pq.true_statistics(A, seed=SCORE_SEED)
    ts.pop("igraph")
    with open(cache, "wb") as fh:
        pickle.dump(ts, fh)
    return ts


def _done(path):
    if not path.exists():
        return set()
    with open(path) as fh:
        return {(r["graph"], r["method"], r["epsilon"], r["seed"])
                for r in map(json.loads, fh)}


def _seeds(text):
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def sweep(args):
    OUT.mkdir(parents=True, exist_ok=True)
    res = OUT / "results.jsonl"
    done = _done(res)
    for name in args.graphs:
        inp = DATA / f"{name}.txt"
        ids, edges = read_edgelist(inp)
        A = pq.adjacency(ids.size, edges)
        log(f"{name}: n={ids.size}, m={len(edges)}; true statistics")
        ts = true_stats(name, ids, edges)
        for eps in args.epsilons:
            for seed in args.seeds:
                for method in args.methods:
                    if name not in ONLY_ON.get(method, {name}):
                        continue
                    if method == "privhrg" and seed not in args.seeds[:args.hrg_seeds]:
                        continue
                    if (name, method, eps, seed) in done:
                        continue
                    with tempfile.TemporaryDirectory() as tmp:
                        out = Path(tmp) / "out.txt"
                        try:
                            info, wall, rss = run_generator(method, inp, eps, seed, out,
                                                            args.timeout)
                        except (RuntimeError, subprocess.TimeoutExpired) as err:
                            log(f"{name} eps={eps} seed={seed} {method}: FAILED {err}")
                            continue
                        own, aligned = output_graphs(out, ids, info.get("n_generated", 0))
                    t0 = time.perf_counter()
                    sc = pq.score(A, ts, own, aligned, seed=SCORE_SEED)
                    row = {"graph": name, "method": method, "epsilon": eps, "seed": seed,
                           "wall_s": wall, "peak_rss_mb": rss,
                           "generate_s": info.get("generate_s"), **sc,
                           "score_s": time.perf_counter() - t0}
                    with open(res, "a") as fh:
                        fh.write(json.dumps(row, default=float) + "\n")
                    log(f"{name} eps={eps} seed={seed} {method}: {wall:.1f} s, {rss:.0f} MB, "
                        f"n {sc['n_out']} m {sc['m_out']} (true {len(edges)}), "
                        f"nmi {sc['q12_nmi']:.3f}, deg KL {sc['q6_degree_kl']:.3f}, "
                        f"scored in {row['score_s']:.1f} s")


# ----------------------------------------------------------------------------- summary


def load_rows(paths=None):
    """Rows of one or more results files (comma-separated); a (graph, method, epsilon, seed)
    cell in a later file replaces the same cell of an earlier one (e.g. dpgraph re-run after a
    change, next to the peers' saved cells)."""
    rows = {}
    for path in (paths.split(",") if paths else [OUT / "results.jsonl"]):
        with open(path) as fh:
            for r in map(json.loads, fh):
                rows[r["graph"], r["method"], r["epsilon"], r["seed"]] = r
    return list(rows.values())


def welch_t(a, b):
    """Welch's t of ``mean(a) - mean(b)``; 0 when both are constant and equal."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) if min(a.size, b.size) > 1 \
        else 0.0
    d = a.mean() - b.mean()
    scale = max(abs(a.mean()), abs(b.mean()), 1e-300)
    if se <= 1e-12 * scale:  # constant samples (rounding noise only)
        return 0.0 if abs(d) <= 1e-12 * scale else float(np.sign(d) * np.inf)
    return float(d / se)


def cells(rows, graph, ours="dpgraph", exclude=()):
    """Per (metric, epsilon): each method's per-seed values, the best peer (by mean; peers in
    ``exclude`` left out), and whether ``ours`` is at least as good as it, with Welch's t where
    it is behind."""
    out = {}
    eps_list = sorted({r["epsilon"] for r in rows if r["graph"] == graph})
    for key, lower in pq.METRICS:
        for eps in eps_list:
            vals = {}
            for r in rows:
                if r["graph"] == graph and r["epsilon"] == eps and key in r:
                    vals.setdefault(r["method"], []).append(float(r[key]))
            if ours not in vals:
                continue
            peers = {m: v for m, v in vals.items() if m in PEER_METHODS and m not in exclude}
            if len({m for m in vals if m in PEER_METHODS}) < MIN_PEERS:
                continue  # a sweep stopped part-way through this (graph, epsilon)
            sign = 1.0 if lower else -1.0
            best = min(peers, key=lambda m: sign * np.mean(peers[m]))
            winner = min(vals, key=lambda m: sign * np.mean(vals[m]))
            a, b = np.mean(vals[ours]), np.mean(peers[best])
            ok = sign * a <= sign * b + 1e-12
            if ok:
                t = None
            elif min(len(vals[ours]), len(peers[best])) < 2:
                t = float("nan")  # one seed: no standard error, not counted as beyond
            else:
                t = abs(welch_t(vals[ours], peers[best]))
            out[key, eps] = {"values": vals, "best_peer": best, "winner": winner, "ours": a,
                             "peer": b, "ok": ok, "t": t}
    return out, [e for e in eps_list if any(k[1] == e for k in out)]


def graphs_in(rows) -> list:
    """The graphs the rows hold: the shared three first, in their order, then any other (a
    graph outside the shared data, run with its own ``DPGRAPH_DATA``) by name."""
    present = {r["graph"] for r in rows}
    shared = [g for g in ("chameleon", "facebook", "ca-hepph") if g in present]
    return shared + sorted(present - set(shared))


def print_summary(rows, ours="dpgraph"):
    graphs = graphs_in(rows)
    # every graph's cells against each peer set, scored once for the tables below
    scored = {label: {g: cells(rows, g, ours, exclude) for g in graphs}
              for label, exclude in PEER_SETS}
    total = {"cells": 0, "ok": 0, "beyond": 0}
    for g in graphs:
        c, eps_list = scored["every peer"][g]
        seeds = {m: len({r["seed"] for r in rows if r["graph"] == g and r["method"] == m})
                 for m in {r["method"] for r in rows if r["graph"] == g}}
        print(f"\n### {g}: {LABEL[ours]} against the best peer per cell\n")
        print("seeds per method: " + ", ".join(f"{LABEL.get(m, m)} {s}" for m, s in sorted(seeds.items()))
              + "; * = not private as published (PATCHES.md)\n")
        print("| query | " + " | ".join(f"eps {e:g}" for e in eps_list) + " |")
        print("|---|" + "---|" * len(eps_list))
        for key, lower in pq.METRICS:
            if not any((key, e) in c for e in eps_list):
                continue  # not scored on this graph's saved cells (a metric added later)
            cellstr = []
            for e in eps_list:
                x = c.get((key, e))
                if x is None:
                    cellstr.append("")
                    continue
                mark = "**" if x["ok"] else ""
                tt = "" if x["ok"] else (", 1 seed" if x["t"] != x["t"] else f", t {x['t']:.1f}")
                cellstr.append(f"{mark}{x['ours']:.3g}{mark} vs {x['peer']:.3g} "
                               f"{LABEL[x['best_peer']]}{tt}")
            arrow = "lower" if lower else "higher"
            print(f"| {key} ({arrow}) | " + " | ".join(cellstr) + " |")
        n_ok = sum(x["ok"] for x in c.values())
        beyond = sum((not x["ok"]) and x["t"] > 2 for x in c.values())
        total["cells"] += len(c)
        total["ok"] += n_ok
        total["beyond"] += beyond
        print(f"\n{g}: {LABEL[ours]} at least as good as the best peer in {n_ok} of {len(c)} "
              f"cells; behind beyond 2 standard errors (Welch |t| > 2) in {beyond}.")
        cp, _ = scored["peers private as published"][g]
        ok_p = sum(x["ok"] for x in cp.values())
        beyond_p = sum((not x["ok"]) and x["t"] > 2 for x in cp.values())
        total["ok_private"] = total.get("ok_private", 0) + ok_p
        total["beyond_private"] = total.get("beyond_private", 0) + beyond_p
        print(f"Against the peers private as published only (not DP-1K, PrivSKG): at least as "
              f"good in {ok_p} of {len(cp)}; behind beyond 2 standard errors in {beyond_p}.")
        print("\n| method | wall s | peak RSS MB | generate s |\n|---|---|---|---|")
        for m in [*OURS, *PEER_METHODS]:
            rs = [r for r in rows if r["graph"] == g and r["method"] == m]
            if rs:
                gs = [r["generate_s"] for r in rs if r.get("generate_s") is not None]
                print(f"| {LABEL.get(m, m)} | {np.median([r['wall_s'] for r in rs]):.2f} | "
                      f"{np.median([r['peak_rss_mb'] for r in rs]):.0f} | "
                      f"{np.median(gs) if gs else float('nan'):.2f} |")
    scoreboard(scored, ours)
    print(f"\nall graphs: {LABEL[ours]} at least as good in {total['ok']} of {total['cells']} "
          f"cells; behind beyond 2 standard errors in {total['beyond']}. Against the peers "
          f"private as published: {total.get('ok_private', 0)} of {total['cells']}, behind "
          f"beyond 2 standard errors in {total.get('beyond_private', 0)}.")
    for label, by_graph in scored.items():
        xs = [x for c, _ in by_graph.values() for (k, _), x in c.items()
              if k not in EDGE_COUNT_QUERIES]
        print(f"Without the edge count ({', '.join(EDGE_COUNT_QUERIES)}), against {label}: at "
              f"least as good in {sum(x['ok'] for x in xs)} of {len(xs)} cells, behind beyond 2 "
              f"standard errors in {sum((not x['ok']) and x['t'] > 2 for x in xs)}.")


def scoreboard(scored, ours="dpgraph"):
    """One line per graph and peer set (``scored[label][graph]`` = :func:`cells`): per
    epsilon, the cells where ``ours`` is at least as good as the best peer, of all cells, and
    (in brackets) those behind beyond 2 standard errors."""
    for label, by_graph in scored.items():
        eps_all = sorted({e for _, eps in by_graph.values() for e in eps})
        print(f"\n{LABEL[ours]} against {label}: cells at least as good / cells "
              "(behind beyond 2 SE)\n")
        print("| graph | " + " | ".join(f"eps {e:g}" for e in eps_all) + " | all |")
        print("|---|" + "---|" * (len(eps_all) + 1))
        for g, (c, _) in by_graph.items():
            line = []
            for e in [*eps_all, None]:
                xs = [x for (k, ee), x in c.items() if e is None or ee == e]
                ok = sum(x["ok"] for x in xs)
                beyond = sum((not x["ok"]) and x["t"] > 2 for x in xs)
                line.append(f"{ok}/{len(xs)} ({beyond})" if xs else "")
            print(f"| {g} | " + " | ".join(line) + " |")


def compare(old_path, new_path, method="dpgraph", new_method=None):
    """Per (graph, metric, epsilon): ``method``'s mean in two results files (``new_method``'s in
    the second, default ``method``) and Welch's t of the difference (a change measured on the
    same seeds)."""
    new_method = new_method or method
    old, new = load_rows(old_path), load_rows(new_path)
    better = worse = 0
    for g in graphs_in(new):
        for key, lower in pq.METRICS:
            for eps in sorted({r["epsilon"] for r in new if r["graph"] == g}):
                a = [r[key] for r in old if (r["graph"], r["method"], r["epsilon"]) ==
                     (g, method, eps) and key in r]
                b = [r[key] for r in new if (r["graph"], r["method"], r["epsilon"]) ==
                     (g, new_method, eps) and key in r]
                if not a or not b:
                    continue
                if min(len(a), len(b)) < 2:
                    continue  # no standard error from one seed
                t = welch_t(b, a) * (-1 if lower else 1)  # positive: the new one is better
                better += t > 2
                worse += t < -2
                flag = "better" if t > 2 else "WORSE" if t < -2 else ""
                print(f"{g:9s} eps {eps:<4g} {key:30s} {np.mean(a):9.4f} -> {np.mean(b):9.4f} "
                      f"(t {t:+.1f}, {len(a)}/{len(b)} seeds) {flag}")
    print(f"better beyond 2 standard errors in {better} cells, worse in {worse}")


COLORS = {"dpgraph": "#1b9e77", "dpgraph_v2": "#1b9e77", "privatize": "#66c2a5", "tmf": "#d95f02", "dpdk": "#7570b3",
          "privskg": "#e7298a", "privgraph": "#66a61e", "privgraph_orig": "#a6d854",
          "privhrg": "#e6ab02"}


def plot_summary(rows, path, ours="dpgraph"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    graphs = graphs_in(rows)
    fig, axes = plt.subplots(1, len(graphs), figsize=(max(5.2 * len(graphs), 9), 9),
                             squeeze=False)
    for ax, g in zip(axes[0], graphs):
        c, eps_list = cells(rows, g, ours)
        keys = [k for k, _ in pq.METRICS if any((k, e) in c for e in eps_list)]
        ax.set_xlim(0, len(eps_list))
        ax.set_ylim(len(keys), 0)
        for i, key in enumerate(keys):
            for j, e in enumerate(eps_list):
                x = c.get((key, e))
                if x is None:
                    continue
                win = x["winner"] if x["winner"] in (*PEER_METHODS, ours) else x["best_peer"]
                if x["ok"]:
                    win = ours  # ties and wins count for ours (at least as good)
                ax.add_patch(plt.Rectangle((j, i), 1, 1, color=COLORS[win], alpha=0.85))
                lower = pq.LOWER_IS_BETTER[key]
                margin = (x["peer"] - x["ours"]) if lower else (x["ours"] - x["peer"])
                txt = f"{margin:+.2g}"
                if not x["ok"] and x["t"] == x["t"]:
                    txt += f"\nt={x['t']:.1f}"
                ax.text(j + 0.5, i + 0.5, txt, ha="center", va="center", fontsize=6.5)
        ax.set_xticks(np.arange(len(eps_list)) + 0.5, [f"{e:g}" for e in eps_list])
        ax.set_yticks(np.arange(len(keys)) + 0.5, keys, fontsize=7)
        ax.set_xlabel("epsilon")
        ax.set_title(g)
    used = sorted({m for r in rows for m in [r["method"]]}, key=list(COLORS).index)
    fig.legend(handles=[Patch(color=COLORS[m], label=LABEL[m]) for m in used if m != "privatize"
                        or ours == "privatize"],
               loc="lower center", ncol=min(len(used), 4), fontsize=8)
    fig.suptitle(f"Colour: winner per (query, epsilon) ({LABEL[ours]} where at least as good).\n"
                 f"Text: {LABEL[ours]}'s margin over the best peer (+ = ahead); t = Welch's t "
                 "where behind.\nNON-PRIVATE scoring; * not private as published", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 0.93))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--graphs", default="chameleon,facebook,ca-hepph")
    r.add_argument("--epsilons", default="0.1,0.5,1,2,4")
    r.add_argument("--seeds", default="0-9", help="'0-9' or '0,3,5'")
    r.add_argument("--methods", default=",".join((*OURS, *PEER_METHODS)))
    r.add_argument("--hrg-seeds", type=int, default=1,
                   help="PrivHRG runs (it ignores the seed; about 11 min each on chameleon)")
    r.add_argument("--timeout", type=float, default=3600.0)
    g = sub.add_parser("generate", help="internal: run one dpgraph generator")
    g.add_argument("method", choices=OURS)
    g.add_argument("input")
    g.add_argument("epsilon", type=float)
    g.add_argument("seed", type=int)
    g.add_argument("output")
    s = sub.add_parser("summary")
    s.add_argument("--ours", default="dpgraph", choices=OURS)
    s.add_argument("--results", default=None,
                   help="results files, comma-separated (later ones replace earlier cells)")
    s.add_argument("--figure", default=None, help="default benchmarks/out/peers/summary_<ours>.png")
    c = sub.add_parser("compare", help="one method in two results files (a change)")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--method", default="dpgraph")
    c.add_argument("--new-method", default=None, help="the method in NEW (default --method)")
    args = p.parse_args()
    if args.cmd == "compare":
        compare(args.old, args.new, args.method, args.new_method)
    elif args.cmd == "generate":
        generate_ours(args.method, args.input, args.epsilon, args.seed, args.output)
    elif args.cmd == "run":
        args.graphs = args.graphs.split(",")
        args.epsilons = [float(e) for e in args.epsilons.split(",")]
        args.seeds = _seeds(args.seeds)
        args.methods = args.methods.split(",")
        import igraph
        import scipy

        import dpgraph
        log(f"{platform.machine()}, python {platform.python_version()}, numpy {np.__version__},"
            f" scipy {scipy.__version__}, igraph {igraph.__version__}, dpgraph "
            f"{dpgraph.__version__}, {os.cpu_count()} cores")
        sweep(args)
    else:
        rows = load_rows(args.results)
        print_summary(rows, args.ours)
        fig = args.figure or OUT / f"summary_{args.ours}.png"
        plot_summary(rows, fig, args.ours)
        print(f"\nfigure: {fig}")


if __name__ == "__main__":
    main()
