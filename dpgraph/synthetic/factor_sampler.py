"""Sampling a release in factor form: the plan's tasks, in memory or on Dask.

A :class:`SamplePlan` (made by :meth:`~dpgraph.release.factor_graph.FactorPrivateGraph.sample_plan`)
cuts the draws of a degree-corrected block model into tasks of at most :data:`SAMPLE_CHUNK`
pairs, each with its own random stream (:func:`dpgraph.privacy.rng.block_generator`), so the
sampled graph does not depend on where the tasks run. :func:`sample_task` runs one task;
:func:`sample_edges` / :func:`write_sampled_edges` run them all on Dask, one output partition per
node range. Post-processing of a release: no privacy cost.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from dataclasses import dataclass

import numpy as np

from dpgraph.io.dask import dask_modules, share_with_workers

__all__ = ["SAMPLE_CHUNK", "SamplePlan", "sample_task", "distinct_sorted", "sample_edges",
           "write_sampled_edges", "check_sample_folder"]


#: Draws per sampling task (:meth:`dpgraph.release.factor_graph.FactorPrivateGraph.sample_plan`): about 64 MB of pairs
#: each. Both samplers use the same tasks, so the graph does not depend on where they run.
SAMPLE_CHUNK = 2**22


@dataclass(frozen=True, eq=False)
class SamplePlan:
    """The sampler's input (:meth:`dpgraph.release.factor_graph.FactorPrivateGraph.sample_plan`): nodes grouped by block
    (``order``, block ``a`` is ``order[starts[a]:starts[a + 1]]``), endpoint weights ``theta``
    and their block sums ``mass``, the tasks ``(a, b, draws)`` (``a <= b``), and the key of the
    tasks' random streams (``cipher``, ``key``: :func:`dpgraph.privacy.rng.block_generator`)."""

    n: int
    order: np.ndarray
    starts: np.ndarray
    theta: np.ndarray
    mass: np.ndarray
    tasks: tuple
    cipher: object
    key: object


def sample_task(plan: SamplePlan, t: int) -> np.ndarray:
    """Task ``t`` of a plan: its ``draws`` node pairs, each endpoint drawn inside its block with
    probability ``theta_i / mass_block`` (endpoint multiplicities ``Multinomial(draws, .)``, the
    second side paired at random: ``draws`` independent pairs), self-pairs dropped. Returns the
    keys ``lo * n + hi`` (``lo < hi``), unsorted, possibly repeated. Its own random stream
    (``block_generator(cipher, key, (t, 0))``): the same numbers wherever it runs."""
    from dpgraph.privacy.rng import block_generator

    a, b, c = plan.tasks[t]
    gen = block_generator(plan.cipher, plan.key, (t, 0))

    def draw(x, size):
        members = plan.order[plan.starts[x]:plan.starts[x + 1]]
        # endpoint multiplicities ~ Multinomial(size, theta_x / mass_x): O(|x| + size)
        return np.repeat(members, gen.multinomial(size, plan.theta[members] / plan.mass[x]))

    i = draw(a, c).astype(np.int64)
    j = gen.permutation(draw(b, c)).astype(np.int64)  # pair the endpoints at random
    keep = i != j
    i, j = i[keep], j[keep]
    return np.minimum(i, j) * plan.n + np.maximum(i, j)


def distinct_sorted(key: np.ndarray) -> np.ndarray:
    """Sorted distinct keys (sort-based: numpy's hash unique is slower here)."""
    key = np.sort(key)
    return key[np.r_[True, key[1:] != key[:-1]]] if key.size else key



# ----------------------------------------------------------------------------- sampling


def _sample_split(plan, t, key_bounds):
    """Sampling task ``t`` (:func:`sample_task`), its keys cut into
    the output partitions' key ranges (one stable radix sort of the partition numbers)."""
    key = sample_task(plan, t)
    part = np.searchsorted(key_bounds, key, side="right") - 1
    R = len(key_bounds) - 1
    order = np.argsort(part.astype(np.int16) if R < 2**15 else part, kind="stable")
    cuts = np.searchsorted(part[order], np.arange(R + 1))
    key = key[order]
    return tuple(key[cuts[r]:cuts[r + 1]] for r in range(R))


def _sample_merge(pieces, labels, n):
    """One output partition: its keys from every task, sorted, repeats dropped, as a frame of
    labels ``(u, v)``."""
    import pandas as pd

    key = distinct_sorted(np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64))
    lo, hi = key // n, key % n
    return pd.DataFrame({"u": labels[lo], "v": labels[hi]})


def _sample_write(pieces, labels, n, path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = _sample_merge(pieces, labels, n)
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    return len(df)


def _sample_partitions(plan, partitions) -> int:
    """Output partitions: given, or one per :data:`SAMPLE_CHUNK`
    draws of the plan (at least 1, at most n)."""
    n = plan.n
    if partitions is None:
        draws = sum(c for _, _, c in plan.tasks)
        return int(max(1, min(max(n, 1), -(-draws // SAMPLE_CHUNK))))
    R = int(partitions)
    if not 1 <= R <= max(n, 1):
        raise ValueError(f"partitions={partitions!r} must be between 1 and n = {n}")
    return R


def _sample_graph(plan, labels, partitions, finish, extra=()):
    """The task graph of the Dask sampler: one task per plan task (its draws, cut by output
    partition), one per output partition (``finish(pieces, labels, n, *extra[r])``)."""
    dask, _ = dask_modules()
    n = plan.n
    T = len(plan.tasks)
    R = _sample_partitions(plan, partitions)
    key_bounds = ((np.arange(R + 1, dtype=np.int64) * n) // R) * n  # node ranges of u
    lab = np.asarray(labels)
    if lab.dtype.kind not in "iu":
        lab = np.asarray(labels, dtype=object)
    plan_s, lab_s = share_with_workers(plan), share_with_workers(lab)
    split = [dask.delayed(_sample_split, pure=True, nout=R)(plan_s, t, key_bounds)
             for t in range(T)]
    step = dask.delayed(finish, pure=True)
    return [step([split[t][r] for t in range(T)], lab_s, n, *(extra[r] if extra else ()))
            for r in range(R)], lab


def sample_edges(plan, labels, *, partitions: int | None = None):
    """The edges of the sampled synthetic graph of ``plan``
    (:meth:`dpgraph.release.routes.matrix_free.FactorPrivateGraph.sample_plan`) as a lazy
    ``dask.dataframe.DataFrame`` with columns ``u``, ``v`` (labels; ``u`` first by node index),
    partition ``r`` holding the edges whose ``u`` is in the ``r``-th of ``partitions`` equal node
    ranges (default: one per ``SAMPLE_CHUNK`` draws of the plan), sorted.

    Each sampling task draws its pairs from its own stream (the same as in memory) and cuts
    them by partition; each partition task gathers its pieces, drops repeated pairs and maps
    indices to labels. A task holds one task's draws (at most
    :data:`SAMPLE_CHUNK` pairs) or one partition; the client holds
    the plan and the labels (``O(n)``), sent once to each worker. Computing the frame twice
    gives the same edges."""
    _, dd = dask_modules()
    parts, lab = _sample_graph(plan, labels, partitions, _sample_merge)
    import pandas as pd

    meta = pd.DataFrame({"u": lab[:0], "v": lab[:0]})
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def check_sample_folder(folder) -> None:
    """Refuse an output folder for :func:`write_sampled_edges` that is a file or not empty (the
    CLI calls it before any budget is spent)."""
    folder = os.fspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise FileExistsError(f"cannot write the sample to {folder!r}: it is a file, not a "
                              f"folder; give a new or empty folder")
    if os.path.isdir(folder) and os.listdir(folder):
        raise FileExistsError(f"cannot write the sample to {folder!r}: the folder is not empty; "
                              f"give a new or empty folder")


def write_sampled_edges(plan, labels, folder, *, partitions: int | None = None) -> int:
    """:func:`sample_edges` written as Parquet files ``folder/part-00000.parquet``, ... by the
    partition tasks themselves (one pass; nothing comes back to the client but the counts).
    ``folder`` is created if missing and must be empty. Returns the number of edges.

    The folder is written whole or not at all, as :func:`dpgraph.io.atomic_output` writes a
    file: the tasks write into a hidden folder beside it (``.<name>.<random>.part``, on the
    same file system, so visible to the workers that see ``folder``), which is renamed onto
    ``folder`` when every file is written; on an error (a failed task, a full disk, an
    interrupt) it is removed, and an existing empty ``folder`` is left as it was."""
    dask, _ = dask_modules()
    folder = os.fspath(folder)
    check_sample_folder(folder)
    R = _sample_partitions(plan, partitions)
    target = os.path.abspath(folder)
    parent, name = os.path.split(target.rstrip(os.sep) or os.sep)
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".{name}.{uuid.uuid4().hex[:12]}.part")
    os.mkdir(tmp)
    try:
        paths = [(os.path.join(tmp, f"part-{r:05d}.parquet"),) for r in range(R)]
        parts, _ = _sample_graph(plan, labels, partitions, _sample_write, extra=paths)
        count = int(sum(dask.compute(*parts)))
        _move_folder(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return count


def _move_folder(tmp: str, target: str) -> None:
    """Rename the complete folder ``tmp`` onto ``target``: a new name, or an empty folder
    (removed first, its permission bits kept; refused if files appeared in it meanwhile)."""
    if not os.path.isdir(target):
        os.rename(tmp, target)
        return
    with contextlib.suppress(OSError):
        os.chmod(tmp, os.stat(target).st_mode & 0o7777)
    try:
        os.rmdir(target)  # OSError unless it is still empty: nothing of it is lost
    except OSError as exc:
        raise FileExistsError(f"cannot write the sample to {target!r}: the folder is not empty "
                              f"any more ({exc.strerror or exc}); give a new or empty "
                              f"folder") from None
    try:
        os.rename(tmp, target)
    except BaseException:
        os.makedirs(target, exist_ok=True)  # the empty folder, as it was
        raise
