"""Tiny synthetic datasets used with ``num_workers > 0``.

They live here, not in notebooks, because DataLoader workers started with
``spawn``/``forkserver`` (forkserver is Linux's default from Python 3.14) must
import the Dataset class and ``worker_init_fn`` by module path.

Each item is ``(index, draw, worker_id)`` so a notebook can see which worker
produced which random number.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator

import numpy as np
import torch
from torch.utils.data import Dataset, IterableDataset, get_worker_info

__all__ = [
    "GlobalNumpyDataset",
    "OwnedRngDataset",
    "ThreadCountDataset",
    "InitialSeedDataset",
    "reseed_owned_rng",
    "constant_seed_init",
    "BrokenDataset",
    "SelfKillingDataset",
    "SelfBusErrorDataset",
    "RangeStream",
    "ShardedRangeStream",
    "PidDataset",
    "check_index",
]


def _check_length(n: int) -> int:
    """``n`` if it is a positive int (a dataset's length), else ValueError (helpers.workers uses it too;
    the name stays private: notebook 00 prints the source of a dataset that calls it)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"dataset length must be a positive int, got {n!r}")
    return n


def check_index(i: object, n: int) -> int:
    """``i`` as an int if it indexes a dataset of length ``n`` (Python, NumPy or 0-dim tensor integers):
    TypeError for a bool or a non-integer, IndexError outside ``[0, n)``."""
    if isinstance(i, bool):
        raise TypeError("index must be an integer, got a bool")
    i = operator.index(i)  # int, NumPy or 0-dim tensor integers; TypeError for anything else
    if not 0 <= i < n:
        raise IndexError(f"index {i} out of range for a dataset of length {n}")
    return i


def _worker_id() -> int:
    info = get_worker_info()
    return -1 if info is None else info.id  # -1: the main process


class GlobalNumpyDataset(Dataset):
    """Draws from NumPy's *global* RNG in ``__getitem__`` (the source notes' pattern)."""

    def __init__(self, n: int) -> None:
        self.n = _check_length(n)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return i, int(np.random.randint(0, 2**31 - 1)), _worker_id()


class OwnedRngDataset(Dataset):
    """Owns a ``np.random.default_rng`` created in ``__init__``: copied into every worker."""

    def __init__(self, n: int, seed: int | None = 0) -> None:
        self.n = _check_length(n)
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return i, int(self.rng.integers(0, 2**31 - 1)), _worker_id()


class _ReportDataset(Dataset):
    """Item ``i`` is ``(i, self.report(), worker id)``: what a subclass reads inside whoever loads it."""

    def __init__(self, n: int) -> None:
        self.n = _check_length(n)

    def __len__(self) -> int:
        return self.n

    def report(self) -> int:
        raise NotImplementedError

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return i, self.report(), _worker_id()


class ThreadCountDataset(_ReportDataset):
    """Reports ``torch.get_num_threads()`` as seen inside whoever loads the item."""

    def report(self) -> int:
        return torch.get_num_threads()


class InitialSeedDataset(_ReportDataset):
    """Reports ``torch.initial_seed()`` as seen inside whoever loads the item.

    In a DataLoader worker that is the seed the worker was started with
    (``base_seed + worker_id``), a 64-bit integer.
    """

    def report(self) -> int:
        return torch.initial_seed()


def reseed_owned_rng(worker_id: int) -> None:
    """``worker_init_fn``: give the worker's copy of the Dataset its own generator.

    ``get_worker_info().seed`` is ``base_seed + worker_id``, and ``base_seed`` is
    drawn afresh for every epoch, so draws differ across workers *and* epochs while
    staying reproducible under ``torch.manual_seed`` / ``DataLoader(generator=...)``.
    """
    info = get_worker_info()
    if info is None:
        raise RuntimeError("reseed_owned_rng must run inside a DataLoader worker")
    info.dataset.rng = np.random.default_rng(info.seed)


def constant_seed_init(worker_id: int) -> None:
    """``worker_init_fn`` anti-pattern: every worker seeds NumPy with the same constant."""
    np.random.seed(42)


class BrokenDataset(Dataset):
    """A Dataset with a bug in ``__getitem__`` (an attribute that was never set), for notebook 16."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        return self.values[i]  # type: ignore[attr-defined]  # the bug: self.values was never assigned


class SelfKillingDataset(Dataset):
    """Its worker process kills itself with SIGKILL, as the kernel's OOM killer would (notebook 16)."""

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        import os
        import signal

        if get_worker_info() is None:
            raise RuntimeError("SelfKillingDataset only makes sense with num_workers > 0")
        os.kill(os.getpid(), signal.SIGKILL)
        return torch.zeros(1)


class SelfBusErrorDataset(Dataset):
    """Its worker process dies of SIGBUS, the signal a worker gets when a full ``/dev/shm`` cannot back
    the shared memory it writes (notebook 16).

    The worker's stderr (file descriptor 2), where DataLoader's SIGBUS handler prints its hint, is
    redirected to ``stderr_path`` first, so the caller can read the hint and nothing reaches its own stderr.
    """

    def __init__(self, stderr_path: str) -> None:
        self.stderr_path = str(stderr_path)

    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> torch.Tensor:
        import os
        import resource
        import signal

        if get_worker_info() is None:
            raise RuntimeError("SelfBusErrorDataset only makes sense with num_workers > 0")
        # SIGBUS dumps core by default: with an unlimited core size (common in containers) that would
        # write a large `core` file into the working directory. Only this worker's limit changes.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        fd = os.open(self.stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
        os.kill(os.getpid(), signal.SIGBUS)
        return torch.zeros(1)


def workers_gone(timeout: float = 10.0, poll: float = 0.05) -> bool:
    """True once ``multiprocessing.active_children()`` is empty (DataLoader workers are such children;
    processes started with ``subprocess`` are not counted), polling up to ``timeout`` seconds.

    A worker exits shortly after its iterator is garbage-collected, not necessarily at that instant, so
    check with a deadline instead of once.
    """
    import math
    import multiprocessing
    import time

    if not (math.isfinite(timeout) and math.isfinite(poll)) or timeout < 0 or poll <= 0:
        raise ValueError(f"timeout must be >= 0 and poll > 0, got timeout={timeout}, poll={poll}")
    deadline = time.monotonic() + timeout
    while multiprocessing.active_children():
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    return True


class RangeStream(IterableDataset):
    """An ``IterableDataset`` of the items ``(i, worker id)`` for ``i`` in ``0 .. n-1``, not sharded.

    Every DataLoader worker gets its own copy and runs ``__iter__`` from the start, so with
    ``num_workers=W`` each ``i`` arrives ``W`` times (notebook 12). :class:`ShardedRangeStream` is the fix.
    """

    def __init__(self, n: int) -> None:
        self.n = _check_length(n)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for i in range(self.n):  # every worker runs this whole loop
            yield i, _worker_id()


class ShardedRangeStream(RangeStream):
    """:class:`RangeStream` sharded across workers: worker ``w`` of ``W`` yields ``range(w, n, W)``.

    In the main process (``num_workers=0``) ``get_worker_info()`` is ``None`` and it yields everything.
    """

    def __iter__(self) -> Iterator[tuple[int, int]]:
        info = get_worker_info()  # None in the main process
        if info is None:
            indices = range(self.n)
        else:  # round robin: worker w of W takes items w, w + W, w + 2W, ...
            indices = range(info.id, self.n, info.num_workers)
        for i in indices:
            yield i, _worker_id()


class PidDataset(Dataset):
    """Item ``i`` is ``(i, os.getpid())``: which process loaded it (notebook 12).

    With ``log_path``, every ``__getitem__`` also appends the line ``"i pid"`` to that file (one
    ``O_APPEND`` write per line, so workers' lines do not interleave), and :meth:`read_log` reads it
    back: a record of what the workers loaded that the main process can read while they run.
    """

    def __init__(self, n: int, log_path: str | os.PathLike[str] | None = None) -> None:
        self.n = _check_length(n)
        if log_path is not None and not isinstance(log_path, (str, os.PathLike)):
            raise ValueError(f"log_path must be None, a str or a path, got {type(log_path).__name__}")
        self.log_path = None if log_path is None else os.fspath(log_path)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[int, int]:
        i = check_index(i, self.n)
        pid = os.getpid()
        if self.log_path is not None:
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, f"{i} {pid}\n".encode())
            finally:
                os.close(fd)
        return i, pid

    def read_log(self) -> list[tuple[int, int]]:
        """The ``(i, pid)`` pairs logged so far, in the order they were written ([] before the first)."""
        if self.log_path is None:
            raise ValueError("this PidDataset was created without a log_path")
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path, encoding="ascii") as f:
            return [(int(i), int(pid)) for i, pid in (line.split() for line in f)]
