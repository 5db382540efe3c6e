"""Unit tests for the notebook-12 datasets in helpers/data.py (IterableDataset sharding, PidDataset)."""

import collections
import os

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import helpers.data as hd


@pytest.mark.parametrize("cls", [hd.RangeStream, hd.ShardedRangeStream, hd.PidDataset])
@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3"])
def test_lengths_are_validated(cls, bad):
    with pytest.raises(ValueError, match="positive int"):
        cls(bad)


def test_streams_in_the_main_process_yield_everything_once():
    for cls in (hd.RangeStream, hd.ShardedRangeStream):
        assert list(cls(5)) == [(i, -1) for i in range(5)]


@pytest.mark.parametrize("workers", [1, 2])
def test_unsharded_stream_repeats_per_worker_and_sharded_does_not(workers):
    def counts(dataset):
        loader = DataLoader(dataset, batch_size=None, num_workers=workers)
        return collections.Counter(int(i) for i, _ in loader)

    assert counts(hd.RangeStream(7)) == collections.Counter({i: workers for i in range(7)})
    assert counts(hd.ShardedRangeStream(7)) == collections.Counter(range(7))
    by_worker = collections.defaultdict(list)
    for i, w in DataLoader(hd.ShardedRangeStream(7), batch_size=None, num_workers=workers):
        by_worker[int(w)].append(int(i))
    assert dict(by_worker) == {w: list(range(w, 7, workers)) for w in range(workers)}
    assert hd.workers_gone()


def test_check_index_takes_integers_in_range():
    assert [hd.check_index(i, 3) for i in (0, np.int64(2), torch.tensor(1))] == [0, 2, 1]
    for bad in (3, -1):
        with pytest.raises(IndexError, match="out of range"):
            hd.check_index(bad, 3)
    for bad in (True, 1.0, "1"):
        with pytest.raises(TypeError):
            hd.check_index(bad, 3)


def test_pid_dataset_items_and_index_checks():
    ds = hd.PidDataset(3)
    assert len(ds) == 3 and ds[2] == (2, os.getpid()) and ds[torch.tensor(1)] == (1, os.getpid())
    with pytest.raises(IndexError, match="out of range"):
        ds[3]
    with pytest.raises(ValueError, match="without a log_path"):
        ds.read_log()
    with pytest.raises(ValueError, match="log_path"):
        hd.PidDataset(3, log_path=3)


def test_pid_dataset_logs_worker_loads(tmp_path):
    log = tmp_path / "loads.txt"
    ds = hd.PidDataset(6, log_path=log)
    assert ds.read_log() == []  # nothing loaded yet, no file yet
    assert ds[4] == (4, os.getpid()) and ds.read_log() == [(4, os.getpid())]
    log.unlink()
    items = [(int(i), int(p)) for i, p in DataLoader(ds, batch_size=None, num_workers=2)]
    assert sorted(ds.read_log()) == sorted(items) and [i for i, _ in items] == list(range(6))
    assert len({p for _, p in items}) == 2 and os.getpid() not in {p for _, p in items}
    assert hd.workers_gone()
