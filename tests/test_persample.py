import pytest
import torch
import torch.nn.functional as F
from torch import nn

from helpers.models import make_mlp
from helpers.persample import METHODS, per_sample_closed_form, per_sample_loop, per_sample_vmap


def ce(out, y):
    return F.cross_entropy(out, y, reduction="none")


@pytest.fixture
def problem():
    g = torch.Generator().manual_seed(0)
    return make_mlp([5, 7, 3], seed=1), torch.randn(6, 5, generator=g), torch.randint(0, 3, (6,), generator=g)


def test_make_mlp_shapes_and_seed():
    m = make_mlp([4, 8, 8, 2], nn.Tanh, seed=3)
    assert [type(layer).__name__ for layer in m] == ["Linear", "Tanh", "Linear", "Tanh", "Linear"]
    assert torch.equal(m[0].weight, make_mlp([4, 8, 8, 2], nn.Tanh, seed=3)[0].weight)
    state = torch.random.get_rng_state()
    make_mlp([2, 2], seed=5)
    assert torch.equal(state, torch.random.get_rng_state()), "seed= must not move the global RNG"


@pytest.mark.parametrize("sizes", [[4], [], [4, 0], [4, 2.5], [True, 3]])
def test_make_mlp_validation(sizes):
    with pytest.raises(ValueError, match="sizes"):
        make_mlp(sizes)


@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_matches_the_loop_and_the_batch_gradient(problem, name):
    model, x, y = problem
    ref = per_sample_loop(model, ce, x, y)
    got = METHODS[name](model, ce, x, y)
    assert got.keys() == ref.keys()
    for k in ref:
        assert got[k].shape == (6, *dict(model.named_parameters())[k].shape)
        torch.testing.assert_close(got[k], ref[k], rtol=1e-5, atol=1e-6)
    batch = torch.autograd.grad(ce(model(x), y).mean(), list(model.parameters()))
    for k, gb in zip(ref, batch):
        torch.testing.assert_close(got[k].mean(0), gb, rtol=1e-5, atol=1e-6)


def test_validation(problem):
    model, x, y = problem
    with pytest.raises(ValueError, match="batch dimension"):
        per_sample_loop(model, ce, x, y[:3])
    with pytest.raises(TypeError, match="nn.Module"):
        per_sample_loop(lambda t: t, ce, x, y)
    with pytest.raises(ValueError, match="randomness"):
        per_sample_vmap(model, ce, x, y, randomness="sometimes")
    with pytest.raises(ValueError, match="only nn.Linear"):
        per_sample_closed_form(nn.Sequential(nn.Linear(5, 3), nn.BatchNorm1d(3)), ce, x, y)
    with pytest.raises(ValueError, match="no parameters"):
        per_sample_loop(nn.ReLU(), ce, x, y)
