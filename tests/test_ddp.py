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


def test_layerdrop_mask_equals_drop_only_without_momentum():
    def gap(**kw):
        a, b = ddp.layerdrop_reference(**kw), ddp.layerdrop_reference(mask=True, **kw)
        return max(abs(x - y) for pa, pb in zip(a, b) for x, y in zip(pa, pb))
    assert gap() < 1e-12
    assert gap(momentum=0.9) > 1e-4


def test_workers_listen_on_loopback_only_but_a_tcpstore_does_not():
    result = ddp.run("listeners", probe_store=True)
    addrs = [a for status, res in result for a in res["listening"]]
    assert addrs and all(a.startswith("127.0.0.1:") for a in addrs), addrs
    store = result[0][1]["store_listening"]
    assert len(store) == 1 and set(store[0].rsplit(":", 1)[0]) <= set("0.:"), store   # 0.0.0.0 or [::]
    assert "store_listening" not in result[1][1]


def test_one_rank_collective_times_out_while_the_other_waits():
    (s0, r0), (s1, r1) = ddp.run("collective_on_one_rank", timeout_s=2)
    assert (s0, s1) == ("ok", "ok") and r1 == {"raised": None}
    assert r0["is_runtime_error"] and "Timed out waiting 2000ms" in r0["message"] and r0["seconds"] >= 1.9
