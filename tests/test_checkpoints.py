import pickle
import sys

import pytest
import torch
from safetensors.torch import save_file

from helpers.checkpoints import (
    LOAD_METHODS,
    load_checkpoint,
    measure_in_fresh_processes,
    measure_load,
    memory_status,
    read_every_tensor,
    reset_peak,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")


@pytest.fixture
def files(tmp_path):
    """One state_dict (3 MiB of float32 and an int64 counter) saved both ways."""
    g = torch.Generator().manual_seed(0)
    sd = {"w": torch.randn(768, 1024, generator=g), "step": torch.tensor(7)}
    torch.save(sd, tmp_path / "sd.pt")
    save_file(sd, tmp_path / "sd.safetensors")
    paths = {m: tmp_path / ("sd.safetensors" if "safetensors" in m else "sd.pt") for m in LOAD_METHODS}
    return sd, paths


def test_load_checkpoint_every_method_round_trips(files):
    sd, paths = files
    for method in LOAD_METHODS:
        loaded = load_checkpoint(method, paths[method])
        assert sorted(loaded) == sorted(sd), method
        assert all(torch.equal(loaded[k], v) for k, v in sd.items()), method


class _Payload:
    """Not a tensor: a weights-only load refuses to rebuild it."""


def test_load_checkpoint_runs_no_code_even_where_the_default_is_off(tmp_path, monkeypatch):
    # the variable turns the weights-only default off (torch 2.6+); earlier releases default to off
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    torch.save({"w": torch.zeros(2), "payload": _Payload()}, tmp_path / "code.pt")
    with pytest.warns(UserWarning, match="forcing weights_only=False"):  # the plain call rebuilds it
        assert isinstance(torch.load(tmp_path / "code.pt")["payload"], _Payload)
    for method in ("torch.load", "torch.load(mmap=True)"):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            load_checkpoint(method, tmp_path / "code.pt")


def test_load_checkpoint_validation(files, tmp_path):
    _, paths = files
    with pytest.raises(ValueError, match="method must be one of"):
        load_checkpoint("pickle.load", paths["torch.load"])
    with pytest.raises(ValueError, match="existing checkpoint file"):
        load_checkpoint("torch.load", tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="existing checkpoint file"):
        load_checkpoint("torch.load", 3)


def test_read_every_tensor_sums_and_validates():
    assert read_every_tensor({"a": torch.ones(3), "b": torch.tensor([True, False, True])}) == 5.0
    with pytest.raises(ValueError, match="non-empty dict"):
        read_every_tensor({})
    with pytest.raises(ValueError, match="non-empty dict"):
        read_every_tensor([torch.ones(1)])


@linux_only
def test_memory_status_fields_are_consistent():
    status = memory_status()
    assert set(status) == {"VmHWM", "VmRSS", "RssAnon"}
    assert status["VmHWM"] >= status["VmRSS"] >= status["RssAnon"] > 0


@linux_only
def test_reset_peak_brings_the_peak_down_to_the_current_rss():
    block = torch.ones(16 * 2**20 // 4)  # 16 MiB, touched, then freed
    del block
    if not reset_peak():
        pytest.skip("this kernel does not allow resetting VmHWM")
    status = memory_status()
    assert status["VmHWM"] - status["VmRSS"] < 4 * 2**20


@linux_only
def test_measure_load_reports_every_key(files):
    _, paths = files
    report = measure_load("torch.load(mmap=True)", paths["torch.load(mmap=True)"])
    assert set(report) == {
        "method",
        "seconds",
        "peak_reset",
        "tensor_bytes",
        "load_peak",
        "load_anon",
        "read_peak",
        "read_anon",
    }
    assert report["tensor_bytes"] == 768 * 1024 * 4 + 8 and report["seconds"] > 0


@linux_only
def test_measure_in_fresh_processes_separates_eager_and_lazy_loads(files):
    _, paths = files
    parent_anon = memory_status()["RssAnon"]
    reports = measure_in_fresh_processes([(m, paths[m]) for m in LOAD_METHODS])
    by_method = {r["method"]: r for r in reports}
    assert list(by_method) == list(LOAD_METHODS)
    size = by_method["torch.load"]["tensor_bytes"]
    assert by_method["torch.load"]["load_anon"] >= 0.9 * size  # copied into private memory
    for lazy in ("torch.load(mmap=True)", "safetensors.load_file"):
        assert by_method[lazy]["load_anon"] < 0.25 * size  # mapped, not read yet
        assert by_method[lazy]["read_anon"] < 0.25 * size  # read pages belong to the page cache
    for r in reports:  # ru_maxrss starts at the parent's memory; the child's own peak starts small
        assert r["ru_maxrss_start"] >= 0.9 * parent_anon and r["hwm_start"] < 64 * 2**20


def test_measure_in_fresh_processes_validation(files, tmp_path):
    _, paths = files
    with pytest.raises(ValueError, match="non-empty list"):
        measure_in_fresh_processes([])
    with pytest.raises(ValueError, match="pair"):
        measure_in_fresh_processes([("torch.load",)])
    with pytest.raises(ValueError, match="method must be one of"):
        measure_in_fresh_processes([("np.load", paths["torch.load"])])
    with pytest.raises(ValueError, match="existing checkpoint file"):
        measure_in_fresh_processes([("torch.load", tmp_path / "missing.pt")])
    with pytest.raises(ValueError, match="timeout"):
        measure_in_fresh_processes([("torch.load", paths["torch.load"])], timeout=0)


@linux_only
def test_measure_in_fresh_processes_reports_a_failing_child(tmp_path):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(RuntimeError, match="measuring torch.load failed"):
        measure_in_fresh_processes([("torch.load", junk)])
