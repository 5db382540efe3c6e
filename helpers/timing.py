"""Wall-clock timing that is honest on GPUs and on busy machines.

Warm-up, CUDA synchronisation, and for comparisons :func:`time_interleaved`: the
candidates run in turn (A, B, A, B, ...) so a burst of load from another process
hits all of them alike, and the *minimum* of the repeats is used, because noise only
ever adds time. Ratios of minima are reported measurements; assert only
conservative bounds on them, and assert asymptotic claims with operation counts.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["Timing", "time_fn", "time_interleaved"]


@dataclass(frozen=True)
class Timing:
    """Result of :func:`time_fn`: every repeat in seconds, and their median."""

    times: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)

    def __str__(self) -> str:
        return f"best {self.best * 1e3:.3f} ms (median {self.median * 1e3:.3f}) over {len(self.times)} runs"


def _sync(device: torch.device | str | None) -> None:
    if device is not None and torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def time_fn(
    fn: Callable[[], Any],
    *,
    repeat: int = 5,
    warmup: int = 1,
    device: torch.device | str | None = None,
) -> Timing:
    """Call ``fn`` ``warmup`` times untimed, then ``repeat`` times timed.

    On a CUDA ``device`` the GPU is synchronised before starting and after each
    call, because kernel launches are asynchronous: without the sync you time the
    launch, not the work.
    """
    if not callable(fn):
        raise TypeError("fn must be callable")
    if not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    if not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")
    for _ in range(warmup):
        fn()
    _sync(device)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return Timing(tuple(times))


def time_interleaved(
    fns: dict[str, Callable[[], Any]],
    *,
    repeat: int = 7,
    warmup: int = 1,
    device: torch.device | str | None = None,
    threads: int | None = None,
) -> dict[str, Timing]:
    """Time several callables in interleaved rounds; return a :class:`Timing` per name.

    Each round calls every function once, in the given order, so slow phases of a
    shared machine are spread over all candidates. Compare them by ``.best`` (the
    minimum), which a disturbed run inflates least.

    ``threads``: run with ``torch.set_num_threads(threads)`` and restore the old
    count afterwards. On a busy CPU a multi-threaded kernel waits for its slowest
    thread, which the OS may have paused, so vectorised code is slowed far more than
    a loop of tiny ops; comparisons meant to hold on a reader's busy laptop time on
    one thread.
    """
    if not isinstance(fns, dict) or not fns:
        raise ValueError("fns must be a non-empty dict of name -> callable")
    for name, fn in fns.items():
        if not callable(fn):
            raise TypeError(f"fns[{name!r}] must be callable")
    if not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an int >= 1, got {repeat!r}")
    if not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an int >= 0, got {warmup!r}")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be None or an int >= 1, got {threads!r}")
    previous = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        for _ in range(warmup):
            for fn in fns.values():
                fn()
        _sync(device)
        times: dict[str, list[float]] = {name: [] for name in fns}
        for _ in range(repeat):
            for name, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                _sync(device)
                times[name].append(time.perf_counter() - t0)
    finally:
        torch.set_num_threads(previous)
    return {name: Timing(tuple(ts)) for name, ts in times.items()}
