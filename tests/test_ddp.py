"""helpers.ddp: argument validation and one real 2-rank run (gloo on loopback)."""

import subprocess
import time

import psutil
import pytest

from helpers import ddp


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scenario": "nope"}, "unknown scenario"),
        ({"scenario": "train", "world_size": 0}, "world_size"),
        ({"scenario": "train", "timeout_s": 0}, "positive"),
        ({"scenario": "train", "backend": "mpi"}, "backend"),
    ],
)
def test_run_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ddp.run(**kwargs)


def test_drop_patterns_differ_between_ranks():
    assert any(ddp.drop_pattern(0, s) != ddp.drop_pattern(1, s) for s in range(4))


@pytest.fixture(scope="module")
def batch():
    """One 2-rank process group for the jobs of the two tests below (a spawn costs ~3 s a group)."""
    jobs = [
        ("train", {}),
        ("group_facts", {}),
        ("layerdrop", {"mode": "find_unused", "momentum": 0.9}),
        ("init_broadcast", {}),
    ]
    result = ddp.run("batch", jobs=jobs, timeout_s=20)
    assert [status for status, _ in result] == ["ok", "ok"], result
    return [res["results"] for _, res in result]


def test_two_rank_training_matches_reference(batch):
    equal = batch[0][0]["equal"]
    ref = ddp.train_reference([8, 8])
    assert max(abs(a - b) for pa, pb in zip(equal, ref) for a, b in zip(pa, pb)) < 1e-12


def test_layerdrop_mask_equals_drop_only_without_momentum():
    def gap(**kw):
        a, b = ddp.layerdrop_reference(**kw), ddp.layerdrop_reference(mask=True, **kw)
        return max(abs(x - y) for pa, pb in zip(a, b) for x, y in zip(pa, pb))

    assert gap() < 1e-12
    assert gap(momentum=0.9) > 1e-4


def test_workers_listen_on_loopback_only_but_a_tcpstore_does_not():
    result = ddp.run("listeners", probe_store=True)
    assert [status for status, _ in result] == ["ok", "ok"], result
    addrs = [a for status, res in result for a in res["listening"]]
    assert addrs and all(a.startswith("127.0.0.1:") for a in addrs), addrs
    pairs = [a for status, res in result for a in res["connected"]]  # gloo's connected pairs
    assert pairs and all(a.startswith("127.0.0.1:") for a in pairs), pairs
    store = result[0][1]["store_listening"]
    assert len(store) == 1 and set(store[0].rsplit(":", 1)[0]) <= set("0.:"), store  # 0.0.0.0 or [::]
    assert "store_listening" not in result[1][1]


def test_one_rank_collective_times_out_while_the_other_waits():
    (s0, r0), (s1, r1) = ddp.run("collective_on_one_rank", timeout_s=2)
    assert (s0, s1) == ("ok", "ok") and r1 == {"raised": None}
    assert r0["is_runtime_error"] and "Timed out waiting 2000ms" in r0["message"] and r0["seconds"] >= 1.9


def test_two_heads_reference_leaves_the_unused_head_alone():
    ref = ddp.two_heads_reference()
    assert ref["final"][2:] == ref["initial"][2:] and ref["final"][:2] != ref["initial"][:2]


def test_group_facts_and_find_unused_with_momentum(batch):
    _, facts, layerdrop, init = batch[0]
    assert (
        facts["default_timeout_s"] == 1800
        and facts["world_timeout_s"] == 20
        and facts["world_size_single"] == 1
    )
    for key in ("train_raised", "single_raised"):
        assert (
            facts[key]["type"] == "ValueError"
            and "expected input tensor to be on GPU" in facts[key]["message"]
        )
    assert facts["eval_equal"]
    gap = lambda a, b: max(abs(x - y) for pa, pb in zip(a, b) for x, y in zip(pa, pb))  # noqa: E731
    assert gap(layerdrop["params"], ddp.layerdrop_reference(momentum=0.9)) < 1e-12
    assert gap(layerdrop["params"], ddp.layerdrop_reference(mask=True, momentum=0.9)) > 1e-4
    other = batch[1][3]
    assert (
        init["after_step_unedited"] == other["after_step_unedited"]
        and init["after_step"] != other["after_step"]
    )
    assert init["rng_untouched"] and other["rng_untouched"] and init["draw"] != other["draw"]


def test_shared_block_validation_and_non_reentrant_checkpoint_matches_plain():
    import torch
    import torch.nn.functional as F

    with pytest.raises(ValueError, match="mode must be one of"):
        ddp._shared_block(0, 2, mode="sometimes")
    x, y = ddp.make_data(8, seed=4)
    with pytest.raises(ValueError, match="checkpoint must be"):
        ddp.SharedBlockNet()(x, checkpoint="always")
    model = ddp.SharedBlockNet()
    F.mse_loss(model(x, checkpoint="non_reentrant"), y).backward()
    grads = [p.grad.flatten().tolist() for p in model.parameters()]
    ref = ddp.shared_block_reference()["grads"]
    assert all(torch.allclose(torch.tensor(a), torch.tensor(b), atol=1e-14) for a, b in zip(grads, ref))


@pytest.mark.parametrize(
    "kwargs, match",
    [({"command": ""}, "non-empty"), ({"command": "true", "timeout_s": 0}, "positive")],
)
def test_run_isolated_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ddp.run_isolated(**kwargs)


def test_run_isolated_sees_only_loopback_and_leaves_nothing_behind_a_timeout(tmp_path):
    """The command sees one network device, lo, up. A command that hangs is killed after the timeout with
    every process it started, even one in a session of its own (as torchrun starts its ranks)."""
    if not ddp.can_isolate():
        assert ddp.run_isolated("true") is None
        pytest.skip("no unprivileged network namespace here")
    seen = ddp.run_isolated("ip -o link", cwd=str(tmp_path))
    devices = seen.stdout.splitlines()
    assert seen.returncode == 0 and len(devices) == 1 and devices[0].startswith("1: lo: <LOOPBACK,UP"), seen
    pid_file = tmp_path / "pid"
    # a grandchild in a new session, like a torchrun rank; the launcher then waits for it
    # (its output away from the pipes, so that only killing it can end it early)
    hang = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 60' >/dev/null 2>&1 & wait"
    with pytest.raises(subprocess.TimeoutExpired):
        ddp.run_isolated(hang, timeout_s=2)
    assert _gone(int(pid_file.read_text()))


def _gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_run_isolated_stops_what_its_command_left_running(tmp_path):
    """A process whose launcher has exited is no longer its descendant; the namespace still finds it:
    holding the output pipe, it makes the call time out, and is killed then, within seconds (not when
    it ends by itself); holding nothing, it is killed when the command returns."""
    if not ddp.can_isolate():
        pytest.skip("no unprivileged network namespace here")
    orphan = "setsid sh -c 'echo $$ > {}; exec sleep 60'"
    holding, idle = tmp_path / "holding", tmp_path / "idle"
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        ddp.run_isolated(f"{orphan.format(holding)} & exit 0", timeout_s=2)
    assert time.monotonic() - start < 20 and _gone(int(holding.read_text()))
    done = ddp.run_isolated(f"{orphan.format(idle)} >/dev/null 2>&1 & sleep 0.5; exit 0")
    assert done.returncode == 0 and idle.read_text().strip() and _gone(int(idle.read_text()))
