"""bench_synthetic_baseline.py with extra methods: variants of ``dpgraph.release_synthetic``.

Each ``--variant NAME:KWARGS|PATCHES`` adds a method NAME that runs ``release_synthetic`` with
the keyword arguments KWARGS (e.g. ``bin_share=0.1``) while the module constants PATCHES of
the ``dpgraph.synthetic`` modules are set, each in the module that defines it (e.g.
``DEGREE_CLASS_RATIO=4.0,MIN_TOP_CLASS=100``; restored after each call). Every other argument
is bench_synthetic_baseline's; list the variants in ``--methods``. How the variants in benchmarks/NOTES.md were run, e.g.:

    PYTHONPATH=. python benchmarks/bench_synthetic_variants.py --seeds 3 \\
        --variant 'r4:|DEGREE_CLASS_RATIO=4.0' --variant 'nobins:bin_share=0.0|' \\
        --methods dpgraph,r4,nobins,privgraph --suffix _variants
"""

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_synthetic_baseline as bs  # noqa: E402

import dpgraph  # noqa: E402
from dpgraph.synthetic import (block_model, communities, degree_classes, release,  # noqa: E402
                               sampler)
from dpgraph.privacy import make_rng  # noqa: E402


def _assignments(text: str) -> dict:
    """``a=1,b=2.5`` -> ``{"a": 1, "b": 2.5}`` (literal values only)."""
    out = {}
    for item in filter(None, (t.strip() for t in text.split(","))):
        key, _, value = item.partition("=")
        out[key.strip()] = ast.literal_eval(value.strip())
    return out


MODULES = (block_model, communities, degree_classes, sampler, release)


def owner(key: str):
    """The ``dpgraph.synthetic`` module that defines (and reads) the constant ``key``."""
    return next((m for m in MODULES if key in vars(m)), None)


def variant(spec: str):
    name, _, rest = spec.partition(":")
    kw_text, _, patch_text = rest.partition("|")
    kwargs, patches = _assignments(kw_text), _assignments(patch_text)
    for key in patches:
        if owner(key) is None:
            raise SystemExit(f"--variant {spec!r}: no dpgraph.synthetic module has a constant {key}")

    def method(data, epsilon, rng):
        gen = make_rng(rng)
        saved = {k: getattr(owner(k), k) for k in patches}
        for k, v in patches.items():
            setattr(owner(k), k, v)
        try:
            rel = dpgraph.release_synthetic(data, epsilon=epsilon, rng=gen, **kwargs)
            return rel.sample(rng=gen), rel.ledger
        finally:
            for k, v in saved.items():
                setattr(owner(k), k, v)

    bs.METHODS[name] = method


def main():
    argv, rest = sys.argv[1:], []
    while argv:
        arg = argv.pop(0)
        if arg == "--variant":
            variant(argv.pop(0))
        elif arg.startswith("--variant="):
            variant(arg.split("=", 1)[1])
        else:
            rest.append(arg)
    sys.argv = [sys.argv[0]] + rest
    bs.main()


if __name__ == "__main__":
    main()
