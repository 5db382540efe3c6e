"""Wall-clock timing that is honest on GPUs: warm-up, CUDA sync, medians."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["Timing", "time_fn"]


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
        return f"median {self.median * 1e3:.3f} ms over {len(self.times)} runs"


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
