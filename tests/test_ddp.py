"""helpers.ddp: argument validation and one real 2-rank run (gloo on loopback)."""

import pytest

from helpers import ddp


@pytest.mark.parametrize("kwargs, match", [
    ({"scenario": "nope"}, "unknown scenario"), ({"scenario": "train", "world_size": 0}, "world_size"),
    ({"scenario": "train", "timeout_s": 0}, "positive"), ({"scenario": "train", "backend": "mpi"}, "backend"),
])
def test_run_validates(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ddp.run(**kwargs)


def test_drop_patterns_differ_between_ranks():
    assert any(ddp.drop_pattern(0, s) != ddp.drop_pattern(1, s) for s in range(4))


def test_two_rank_training_matches_reference():
    result = ddp.run("batch", jobs=[("train", {})])
    assert [status for status, _ in result] == ["ok", "ok"]
    equal = result[0][1]["results"][0]["equal"]
    ref = ddp.train_reference([8, 8])
    assert max(abs(a - b) for pa, pb in zip(equal, ref) for a, b in zip(pa, pb)) < 1e-12


def test_workers_listen_on_loopback_only():
    result = ddp.run("listeners")
    addrs = [a for status, res in result for a in res["listening"]]
    assert addrs and all(a.startswith("127.0.0.1:") for a in addrs), addrs
