"""Unit tests for helpers/workers.py (notebook 11: the cost per item of DataLoader workers)."""

import math
import pickle
import sys
import threading
import time

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import helpers.workers as hw


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3"])
def test_costly_dataset_validates_length(bad):
    with pytest.raises(ValueError, match="positive int"):
        hw.CostlyDataset(bad, 0.0)


@pytest.mark.parametrize("bad", [-1e-3, math.inf, math.nan, "1", True, None])
def test_costly_dataset_validates_cost(bad):
    with pytest.raises(ValueError, match="cost_s"):
        hw.CostlyDataset(4, bad)


def test_costly_dataset_validates_mode():
    with pytest.raises(ValueError, match="mode"):
        hw.CostlyDataset(4, 0.0, mode="nap")


@pytest.mark.parametrize("mode", hw.COST_MODES)
def test_costly_dataset_items_cost_at_least_their_cost(mode):
    ds = hw.CostlyDataset(3, 0.005, mode=mode)
    assert len(ds) == 3
    t0 = time.perf_counter()
    assert [ds[i] for i in range(3)] == [0, 1, 2]
    assert time.perf_counter() - t0 >= 3 * 0.005
    assert ds[torch.tensor(1)] == 1 and ds[np.int64(2)] == 2


def test_costly_dataset_spin_needs_the_cpu_for_its_whole_cost():
    # Each of two threads must use cost_s of its own CPU time. With a wall-clock deadline
    # two threads sharing one GIL would finish "on time" with about half the work each.
    ds = hw.CostlyDataset(2, 0.02, mode="spin")
    used = []

    def item(i):
        cpu0 = time.thread_time()
        ds[i]
        used.append(time.thread_time() - cpu0)

    threads = [threading.Thread(target=item, args=(i,)) for i in range(2)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(used) == 2 and min(used) >= 0.02, used
    if getattr(sys, "_is_gil_enabled", lambda: True)():  # one thread at a time
        assert time.perf_counter() - t0 >= 0.95 * 2 * 0.02
    cpu0 = time.thread_time()  # and a sleep uses next to no CPU time
    hw.CostlyDataset(1, 0.02)[0]
    assert time.thread_time() - cpu0 < 0.01


def test_costly_dataset_checks_its_index():  # (the checks themselves: test_data_loading.py, check_index)
    with pytest.raises(IndexError, match="out of range"):
        hw.CostlyDataset(2, 0)[2]


def test_costly_dataset_in_workers():
    loader = DataLoader(hw.CostlyDataset(8, 0.001), batch_size=2, num_workers=2)
    assert torch.cat(list(loader)).tolist() == list(range(8))


def test_costly_dataset_pickles_by_module_path():
    # what spawn/forkserver workers need: the pickle names the class by module path, not its code
    ds = hw.CostlyDataset(3, 0.0, mode="spin")
    data = pickle.dumps(ds)
    assert b"helpers.workers" in data and b"CostlyDataset" in data
    copy = pickle.loads(data)
    assert type(copy) is hw.CostlyDataset and (copy.n, copy.cost_s, copy.mode) == (3, 0.0, "spin")
