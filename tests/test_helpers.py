import os
import random

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import helpers.data as hd
from helpers.device import env_report, format_report, patched_environ, pick_device
from helpers.plotting import SAVE_ENV, save_figure
from helpers.seeding import make_generator, seed_everything, seed_worker
from helpers.timing import Timing, time_fn, time_interleaved


# --- seeding ---------------------------------------------------------------------------------
def test_seed_everything_repeats_all_rngs():
    seed_everything(3)
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    seed_everything(3)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == first
    assert os.environ["PYTHONHASHSEED"] == "3"


def test_seed_everything_deterministic_flag_is_undoable():
    try:
        seed_everything(0, deterministic=True)
        assert torch.are_deterministic_algorithms_enabled()
    finally:
        torch.use_deterministic_algorithms(False)
        torch.backends.cudnn.deterministic = False


@pytest.mark.parametrize(
    "bad, exc", [(-1, ValueError), (2**32, ValueError), (1.5, TypeError), ("1", TypeError), (True, TypeError)]
)
def test_seed_validation(bad, exc):
    with pytest.raises(exc, match="seed"):
        seed_everything(bad)
    with pytest.raises(exc, match="seed"):
        make_generator(bad)


def test_seed_worker_validation_and_effect():
    with pytest.raises(ValueError, match="worker_id"):
        seed_worker(-1)
    torch.manual_seed(2**40 + 5)  # a 64-bit seed must be folded into NumPy's 32-bit range
    seed_worker(0)
    a = np.random.rand()
    seed_worker(0)
    assert np.random.rand() == a


def test_make_generator_reproducible():
    assert torch.equal(torch.rand(3, generator=make_generator(5)), torch.rand(3, generator=make_generator(5)))


# --- data ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cls", [hd.GlobalNumpyDataset, hd.OwnedRngDataset, hd.ThreadCountDataset, hd.InitialSeedDataset]
)
@pytest.mark.parametrize("bad", [0, -3, 2.0, True])
def test_datasets_validate_length(cls, bad):
    with pytest.raises(ValueError, match="positive int"):
        cls(bad)


def test_main_process_worker_id_is_minus_one():
    assert hd.OwnedRngDataset(2)[0][2] == -1


def test_reseed_owned_rng_outside_worker():
    with pytest.raises(RuntimeError, match="inside a DataLoader worker"):
        hd.reseed_owned_rng(0)


def test_reseed_owned_rng_in_workers_gives_distinct_draws():
    loader = DataLoader(
        hd.OwnedRngDataset(4), batch_size=2, num_workers=2, worker_init_fn=hd.reseed_owned_rng
    )
    draws = [d for _, d, _ in loader]
    assert not torch.equal(draws[0], draws[1])


def test_initial_seed_dataset_reports_worker_seed():
    torch.manual_seed(0)
    assert hd.InitialSeedDataset(1)[0] == (0, 0, -1)  # main process: the seed just set
    it = iter(DataLoader(hd.InitialSeedDataset(4), batch_size=None, num_workers=2))
    seen = {(worker, seed) for _, seed, worker in it}
    assert seen == {(0, it._base_seed), (1, it._base_seed + 1)}


def test_self_bus_error_dataset(tmp_path):
    with pytest.raises(RuntimeError, match="num_workers > 0"):
        hd.SelfBusErrorDataset(tmp_path / "e.txt")[0]
    err_file = tmp_path / "worker_stderr.txt"
    with pytest.raises(RuntimeError, match="DataLoader worker") as info:
        next(iter(DataLoader(hd.SelfBusErrorDataset(err_file), num_workers=1)))
    assert "killed by signal: Bus error" in f"{info.value} {info.value.__cause__}"
    assert "insufficient shared memory" in err_file.read_text()


# --- device ----------------------------------------------------------------------------------
def test_pick_device():
    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="prefer"):
        pick_device("gpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA was requested"):
            pick_device("cuda")


def test_env_report_and_format():
    rep = env_report()
    assert rep["torch"] == torch.__version__
    text = format_report(rep)
    assert "torch" in text and text.count("\n") == len(rep) - 1
    with pytest.raises(TypeError):
        format_report(["not", "a", "dict"])


def test_patched_environ_restores():
    os.environ.pop("FIELDNOTES_T1", None)
    os.environ["FIELDNOTES_T2"] = "keep"
    with patched_environ(FIELDNOTES_T1="x", FIELDNOTES_T2=None):
        assert os.environ["FIELDNOTES_T1"] == "x" and "FIELDNOTES_T2" not in os.environ
    assert "FIELDNOTES_T1" not in os.environ and os.environ.pop("FIELDNOTES_T2") == "keep"
    with pytest.raises(TypeError, match="str or None"):
        with patched_environ(FIELDNOTES_T1=1):
            pass


# --- timing ----------------------------------------------------------------------------------
def test_time_fn_counts_calls_and_median():
    calls = []
    t = time_fn(lambda: calls.append(1), repeat=4, warmup=2)
    assert len(calls) == 6 and len(t.times) == 4 and t.best <= t.median
    assert "median" in str(t)
    assert Timing((3.0, 1.0, 2.0)).median == 2.0


@pytest.mark.parametrize("kw", [{"repeat": 0}, {"repeat": 1.5}, {"warmup": -1}])
def test_time_fn_validation(kw):
    with pytest.raises(ValueError):
        time_fn(lambda: None, **kw)
    with pytest.raises(TypeError):
        time_fn(None)


def test_time_interleaved_alternates_and_reports_minimum():
    order = []
    out = time_interleaved(
        {"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeat=3, warmup=1
    )
    assert order == ["a", "b"] * 4
    assert set(out) == {"a", "b"} and all(len(t.times) == 3 for t in out.values())
    assert Timing((3.0, 1.0, 2.0)).best == 1.0 and "best 1000.000 ms" in str(Timing((3.0, 1.0, 2.0)))


@pytest.mark.parametrize("bad", [{}, [], {"a": 1}])
def test_time_interleaved_validation(bad):
    with pytest.raises((ValueError, TypeError)):
        time_interleaved(bad)
    with pytest.raises(ValueError, match="repeat"):
        time_interleaved({"a": lambda: None}, repeat=0)
    with pytest.raises(ValueError, match="threads"):
        time_interleaved({"a": lambda: None}, threads=0)


def test_time_interleaved_sets_and_restores_threads():
    before = torch.get_num_threads()
    seen = []
    time_interleaved({"a": lambda: seen.append(torch.get_num_threads())}, repeat=2, warmup=0, threads=1)
    assert seen == [1, 1] and torch.get_num_threads() == before


# --- plotting --------------------------------------------------------------------------------
def test_save_figure_only_when_executing(monkeypatch, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import helpers.plotting as hp

    fig, _ = plt.subplots()
    monkeypatch.delenv(SAVE_ENV, raising=False)
    assert save_figure(fig, "00_test.png") is None
    monkeypatch.setenv(SAVE_ENV, "1")
    monkeypatch.setattr(hp, "FIGURES_DIR", tmp_path)
    path = save_figure(fig, "00_test.png")
    assert path == tmp_path / "00_test.png" and path.stat().st_size > 0
    for bad in ["test.png", "00_test.svg", "00_Test.png", "../00_x.png"]:
        with pytest.raises(ValueError, match="figure name"):
            save_figure(fig, bad)
    with pytest.raises(TypeError, match="Figure"):
        save_figure("not a figure", "00_x.png")
    plt.close(fig)


# --- graphs ----------------------------------------------------------------------------------
def test_render_png(monkeypatch):
    import graphviz

    from helpers.graphs import render_png

    g = graphviz.Digraph()
    g.edge("a", "b")
    with pytest.raises(TypeError, match="Digraph"):
        render_png("digraph {}")
    with pytest.raises(ValueError, match="fontname"):
        render_png(g, fontname="")
    import shutil as _shutil

    if _shutil.which("dot"):
        assert render_png(g)[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RuntimeError, match="make setup"):
        render_png(g)


# --- deploy ----------------------------------------------------------------------------------
def test_captured_output_catches_print_and_fd_writes():
    import os as _os

    from helpers.deploy import captured_output

    with captured_output() as log:
        print("python level")
        _os.write(2, b"fd level\n")
    text = log.getvalue()
    assert "python level" in text and "fd level" in text


def test_channel_significance_and_validation():
    from torch import nn

    from helpers.deploy import channel_significance, export_onnx

    conv, bn = nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)
    with torch.no_grad():
        conv.weight[1].zero_()
        bn.weight[3] = 0.0
    weak = channel_significance(nn.Sequential(conv, bn))
    assert weak == {"0": [1], "1": [3]}
    with pytest.raises(ValueError, match="rel_threshold"):
        channel_significance(conv, 2.0)
    with pytest.raises(TypeError, match="tuple"):
        export_onnx(conv, torch.zeros(1), "x.onnx")


def test_drop_channels_shapes_output_and_validation():
    from torch import nn

    from helpers.deploy import drop_channels

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 5, 3),
        nn.BatchNorm2d(5),
        nn.ReLU(),
        nn.ConvTranspose2d(5, 4, 2, stride=2),
        nn.ReLU(),
        nn.Conv2d(4, 2, 1),
    ).eval()
    with torch.no_grad():
        model[0].weight[1].zero_()
        model[0].bias[1] = 0.0  # channel 1 of layer 0 outputs exactly 0 -> BN (beta 0, mean 0) -> 0
        model[3].weight[:, 2].zero_()
        model[3].bias[2] = -1.0  # negative constant, killed by the ReLU
    x = torch.randn(2, 3, 6, 6)
    pruned = drop_channels(drop_channels(model, 0, [1]), 3, [2])
    assert model[0].out_channels == 5 and model[0].weight.shape[0] == 5  # original untouched
    assert pruned[0].weight.shape == (4, 3, 3, 3) and pruned[1].running_mean.shape == (4,)
    assert pruned[3].weight.shape == (4, 3, 2, 2) and pruned[5].weight.shape == (2, 3, 1, 1)
    torch.testing.assert_close(pruned(x), model(x))
    assert (drop_channels(model, 0, [0])(x) - model(x)).abs().max() > 1e-3
    with pytest.raises(ValueError, match="subset"):
        drop_channels(model, 0, [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="Conv2d"):
        drop_channels(model, 1, [0])
    with pytest.raises(ValueError, match="Linear"):
        drop_channels(nn.Sequential(nn.Conv2d(1, 2, 1), nn.Linear(2, 1)), 0, [0])


def test_workers_gone_waits_for_a_child_and_validates():
    import multiprocessing
    import time

    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(0.3,))
    child.start()
    assert not hd.workers_gone(timeout=0.0)
    assert hd.workers_gone(timeout=10.0)
    with pytest.raises(ValueError, match="timeout"):
        hd.workers_gone(timeout=-1)
    with pytest.raises(ValueError, match="timeout"):
        hd.workers_gone(timeout=float("nan"))


def test_matmul_flops_agrees_with_torchs_flop_counter_on_products_vmap_and_batched_grads():
    """helpers.flops counts what FlopCounterMode counts for Linear networks: a forward and backward (mm,
    addmm), vmap(grad) and is_grads_batched (bmm); the formula 2·m·n·k per product for each op."""
    from torch.func import functional_call, grad, vmap
    from torch.utils.flop_counter import FlopCounterMode as TorchCounter

    import helpers.flops as hf

    assert hf.FlopCounterMode is TorchCounter  # torch 2.1+: torch's own class
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
    x, y = torch.randn(4, 6), torch.randn(4, 3)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def one(p, xi, yi):
        return torch.nn.functional.mse_loss(functional_call(model, p, (xi[None],)), yi[None])

    def per_sample_losses():
        return torch.nn.functional.mse_loss(model(x), y, reduction="none").sum(1)

    runs = {
        "forward and backward": lambda: per_sample_losses().sum().backward(),
        "vmap(grad)": lambda: vmap(grad(one), in_dims=(None, 0, 0))(params, x, y),
        "is_grads_batched": lambda: torch.autograd.grad(
            per_sample_losses(), list(model.parameters()), torch.eye(4), is_grads_batched=True
        ),
    }
    for name, run in runs.items():
        with TorchCounter(display=False) as theirs:
            run()
        with hf.MatmulFlops() as ours:
            run()
        assert ours.get_total_flops() == theirs.get_total_flops() > 0, name
    a, b, bias = torch.randn(2, 3), torch.randn(3, 4), torch.randn(4)
    A, B = torch.randn(5, 2, 3), torch.randn(5, 3, 4)
    assert hf.matmul_flops(torch.ops.aten.mm.default, (a, b)) == 2 * 2 * 3 * 4
    assert hf.matmul_flops(torch.ops.aten.addmm.default, (bias, a, b)) == 2 * 2 * 3 * 4
    assert hf.matmul_flops(torch.ops.aten.bmm.default, (A, B)) == 2 * 5 * 2 * 3 * 4
    # a 1-D bias: reading the wrong two arguments would raise
    assert hf.matmul_flops(torch.ops.aten.baddbmm.default, (torch.zeros(4), A, B)) == 2 * 5 * 2 * 3 * 4
    assert hf.matmul_flops(torch.ops.aten.relu.default, (a,)) == 0
    with pytest.raises(ValueError, match="display must be False"):
        hf.MatmulFlops(display=True)
    with pytest.raises(ValueError, match="tuple"):
        hf.matmul_flops(torch.ops.aten.mm.default, [a, b])
    with pytest.raises(ValueError, match="2-D tensors at positions 1 and 2"):
        hf.matmul_flops(torch.ops.aten.addmm.default, (a, b))  # the bias left out
    with pytest.raises(ValueError, match=r"3-D tensors.*\(2, 3\)"):
        hf.matmul_flops(torch.ops.aten.bmm.default, (a, B))


def test_flop_counter_is_the_matmul_count_on_torch_2_0(monkeypatch):
    """On torch 2.0 (no torch.utils.flop_counter) helpers.flops.FlopCounterMode is MatmulFlops: the module
    chooses by version, here with the version check answering as torch 2.0 would."""
    import importlib

    import helpers.flops as hf
    import helpers.versions as hv

    monkeypatch.setattr(hv, "since", lambda version: hv.parse_version("2.0") >= hv.parse_version(version))
    try:
        assert importlib.reload(hf).FlopCounterMode is hf.MatmulFlops
    finally:
        monkeypatch.undo()
        importlib.reload(hf)
    if hv.since("2.1"):  # and back: torch's own class
        from torch.utils.flop_counter import FlopCounterMode as TorchCounter

        assert hf.FlopCounterMode is TorchCounter
