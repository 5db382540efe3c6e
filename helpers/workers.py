"""A Dataset that makes DataLoader workers' cost per item measurable (notebook 11).

:class:`CostlyDataset`: each item costs a chosen time, spent sleeping (an I/O-like wait,
which workers can overlap without a core each) or spinning on the CPU (work that needs
a core for the whole cost).

It lives here, not in the notebook, because DataLoader workers started with ``spawn``
or ``forkserver`` (forkserver is Linux's default from Python 3.14) must import the
Dataset's class by module path. Notebook 11's copy-on-read experiment (C19) defines its
Dataset in the notebook: its workers are forked, so they inherit the class.
"""

from __future__ import annotations

import math
import time

from torch.utils.data import Dataset

from helpers.data import _check_length, check_index

__all__ = ["COST_MODES", "CostlyDataset"]

#: How :class:`CostlyDataset` spends an item's cost.
COST_MODES = ("sleep", "spin")


class CostlyDataset(Dataset):
    """``n`` items; item ``i`` is ``i``, returned after spending ``cost_s`` seconds.

    ``mode="sleep"`` waits in ``time.sleep`` (the process uses no CPU meanwhile, like a
    read from disk or network); ``mode="spin"`` busy-loops until the thread has used
    ``cost_s`` of CPU time (``time.thread_time``), like decoding or augmentation: a
    thread that waits for a core takes longer by the clock. ``time.sleep`` may overshoot
    by tens of microseconds, so an item costs *at least* ``cost_s`` either way.
    """

    def __init__(self, n: int, cost_s: float, mode: str = "sleep") -> None:
        self.n = _check_length(n)
        if (
            isinstance(cost_s, bool)
            or not isinstance(cost_s, (int, float))
            or not math.isfinite(cost_s)
            or cost_s < 0
        ):
            raise ValueError(f"cost_s must be a finite number of seconds >= 0, got {cost_s!r}")
        if mode not in COST_MODES:
            raise ValueError(f"mode must be one of {COST_MODES}, got {mode!r}")
        self.cost_s = float(cost_s)
        self.mode = mode

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        i = check_index(i, self.n)
        if self.cost_s > 0:
            if self.mode == "sleep":
                time.sleep(self.cost_s)
            else:
                end = time.thread_time() + self.cost_s
                while time.thread_time() < end:
                    pass
        return i
