"""helpers.nccl_errors on the CPU: argument checks, a real gloo pair, the error and timeout paths, and
the worker's environment.

The NCCL case itself (two ranks on one GPU) needs a GPU: notebook 13 runs it there (C23).
"""

import inspect
import multiprocessing as mp
import time

import pytest

from helpers import nccl_errors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"backends": ()}, "backends"),
        ({"backends": "gloo"}, "backends"),
        ({"backends": ("mpi",)}, "backends"),
        ({"backends": ("gloo", "gloo")}, "distinct"),
        ({"device": "tpu:0"}, "device"),
        ({"device": 0}, "device"),
        ({"world_size": 1}, "world_size"),
        ({"world_size": True}, "world_size"),
        ({"group_timeout_s": 0}, "group_timeout_s"),
        ({"join_timeout_s": float("inf")}, "join_timeout_s"),
    ],
)
def test_run_same_gpu_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nccl_errors.run_same_gpu(**kwargs)


def test_gloo_pair_all_reduces_on_the_cpu():
    out = nccl_errors.run_same_gpu(("gloo",), device="cpu", join_timeout_s=60)
    assert list(out) == ["gloo"]
    assert out["gloo"] == [{"status": "ok", "value": [3.0] * 4, "device": "cpu"}] * 2


def test_a_failing_backend_comes_back_as_data_on_every_rank():
    # No usable NCCL here (a CPU tensor, or no NCCL at all): each rank reports the exception it caught.
    out = nccl_errors.run_same_gpu(("nccl",), device="cpu", join_timeout_s=60)
    for rank in out["nccl"]:
        assert rank["status"] == "error", rank
        assert rank["stage"] in ("init_process_group", "all_reduce") and rank["type"] and rank["message"]
        assert isinstance(rank["is_runtime_error"], bool) and rank["device"] == "cpu"


def test_the_deadline_kills_workers_that_have_not_reported():
    t0 = time.monotonic()
    out = nccl_errors.run_same_gpu(("gloo",), device="cpu", join_timeout_s=0.05)
    assert time.monotonic() - t0 < 20
    assert out == {"gloo": [{"status": "timeout"}] * 2}  # too short to even import torch
    assert not mp.active_children()


def test_workers_drop_the_nccl_settings_that_would_change_the_outcome():
    environ = {
        "NCCL_HOSTID": "rank-specific",
        "NCCL_MULTI_RANK_GPU_ENABLE": "1",
        "NCCL_SOCKET_IFNAME": "eth0",
        "PATH": "/usr/bin",
    }
    nccl_errors._prepare_environ(environ)
    assert environ == {
        "NCCL_SOCKET_IFNAME": "lo",
        "GLOO_SOCKET_IFNAME": "lo",
        "PATH": "/usr/bin",
    }
    assert set(nccl_errors.DROPPED_ENV) == {"NCCL_HOSTID", "NCCL_MULTI_RANK_GPU_ENABLE"}


def test_the_worker_prepares_its_environment_before_the_group_starts():
    # The worker runs in a spawned process with its output on /dev/null; its source shows the order.
    source = inspect.getsource(nccl_errors._worker)
    assert 0 < source.index("_prepare_environ(os.environ)") < source.index("dist.init_process_group(")
