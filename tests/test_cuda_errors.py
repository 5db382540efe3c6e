"""Unit tests for helpers/cuda_errors.py (notebook 12, C33 and C34); they run on CPU."""

import pickle

import pytest
import torch
from torch.utils.data import DataLoader

from helpers.cuda_errors import SquaresOn


def test_items_are_squares_on_the_device_asked_for():
    ds = SquaresOn(4, device="cpu")
    assert len(ds) == 4 and ds.device == torch.device("cpu")
    items = [ds[i] for i in range(4)]
    assert all(t.dtype == torch.float32 and t.shape == () and t.device.type == "cpu" for t in items)
    assert [t.item() for t in items] == [0.0, 1.0, 4.0, 9.0]
    assert ds[torch.tensor(3)].item() == 9.0


def test_building_for_cuda_does_not_touch_cuda():
    ds = SquaresOn(2)  # the default device is cuda; only the name is parsed
    assert ds.device == torch.device("cuda") and len(ds) == 2


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_validates_length(bad):
    with pytest.raises(ValueError, match="positive int"):
        SquaresOn(bad, device="cpu")


def test_checks_its_index_and_device_name():
    with pytest.raises(IndexError, match="out of range"):
        SquaresOn(2, device="cpu")[2]
    with pytest.raises(RuntimeError):
        SquaresOn(2, device="nonsense")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the machine without CUDA")
def test_a_cuda_item_fails_without_cuda():
    # CPU-only build: AssertionError 'Torch not compiled with CUDA enabled'; CUDA build without a
    # driver or device: RuntimeError. Either way the item is never made on the CPU instead.
    with pytest.raises((AssertionError, RuntimeError)):
        SquaresOn(1)[0]


def test_pickles_by_module_path():
    # what spawn/forkserver workers need: the pickle names the class by module path, not its code
    data = pickle.dumps(SquaresOn(3, device="cpu"))
    assert b"helpers.cuda_errors" in data and b"SquaresOn" in data
    copy = pickle.loads(data)
    assert type(copy) is SquaresOn and (copy.n, copy.device) == (3, torch.device("cpu"))


def test_loads_in_a_spawned_worker():
    loader = DataLoader(
        SquaresOn(4, device="cpu"), batch_size=2, num_workers=1, multiprocessing_context="spawn", timeout=120
    )
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [4.0, 9.0]]
