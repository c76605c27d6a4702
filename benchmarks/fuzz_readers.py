"""Fuzz every graph reader (and read_csp) with hypothesis; print the counts per reader.

    PYTHONPATH=. python benchmarks/fuzz_readers.py --examples 10000

For each reader, ``--examples`` inputs from :func:`tests.fuzz_inputs.fuzzed_file` (random bytes,
mutated valid files: truncation, huge numbers, NaN/inf, non-UTF-8 bytes, very long lines, mixed
separators; gzip streams whole, cut short or corrupted) are written to a file and read. Counted:
graphs returned, each allowed exception (GraphFormatError / ValueError / TypeError naming the
file), failures (any other exception, a message without the file name, or a read over 5 s), and
the slowest read. Derandomized (``--seed`` picks the hypothesis seed), no example database.
An address-space limit (``--memory-gib``, default 4) turns a runaway allocation into a
MemoryError, which counts as a failure, instead of taking the shared machine down.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from fuzz_inputs import READERS, check_reader, fuzzed_file  # noqa: E402


def fuzz(reader: str, examples: int, seed_value: int, directory: str) -> dict:
    counts = collections.Counter()
    failures = []
    slowest = [0.0, b""]
    slowest_cpu = [0.0, b""]

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(fuzzed_file(reader))
    def run(case):
        data, fmt = case
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            counts[check_reader(reader, data, fmt, directory)] += 1
        except AssertionError as exc:
            counts["FAILURE"] += 1
            if len(failures) < 5:
                failures.append(str(exc)[:600])
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        if took > slowest[0]:
            slowest[:] = [took, data]
        if cpu > slowest_cpu[0]:
            slowest_cpu[:] = [cpu, data]

    run()
    return {"counts": counts, "failures": failures, "slowest": slowest[0],
            "slowest_input": slowest[1], "slowest_cpu": slowest_cpu[0],
            "slowest_cpu_input": slowest_cpu[1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--readers", nargs="*", default=list(READERS))
    ap.add_argument("--memory-gib", type=float, default=4.0)
    ap.add_argument("--show-slowest", action="store_true",
                    help="print the size and start of each reader's slowest input")
    args = ap.parse_args(argv)
    limit = int(args.memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    print(f"{'reader':9} {'inputs':>7} {'graph':>6} {'GraphFormatError':>16} {'ValueError':>10} "
          f"{'TypeError':>9} {'memory':>6} {'failures':>8} {'slowest s':>9} {'time s':>7}")
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for reader in args.readers:
            t0 = time.perf_counter()
            out = fuzz(reader, args.examples, args.seed, d)
            c = out["counts"]
            total = sum(c.values())
            print(f"{reader:9} {total:7d} {c['ok']:6d} {c['GraphFormatError']:16d} "
                  f"{c['ValueError']:10d} {c['TypeError']:9d} "
                  f"{c['InsufficientMemoryError']:6d} {c['FAILURE']:8d} "
                  f"{out['slowest']:9.3f} {time.perf_counter() - t0:7.1f}", flush=True)
            for f in out["failures"]:
                print("   ", f)
            if args.show_slowest:
                for what, key in (("wall", "slowest_input"), ("CPU", "slowest_cpu_input")):
                    data = out[key]
                    lines = data.count(b"\n")
                    print(f"    slowest input ({what}): {len(data)} bytes, {lines} newlines, "
                          f"starts {data[:120]!r}")
                print(f"    largest CPU time of one read: {out['slowest_cpu']:.3f} s")
            bad += c["FAILURE"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
