"""Per-sample gradients, five ways (notebook 03 compares them).

Every function takes a model, a *per-sample* loss function ``loss_fn(output, target) -> [B]``
(e.g. ``F.cross_entropy(..., reduction="none")``), inputs ``x`` [B, ...] and targets ``y`` [B, ...],
and returns ``{parameter name: tensor of shape [B, *parameter.shape]}``.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

__all__ = [
    "per_sample_loop",
    "per_sample_unreduced",
    "per_sample_grads_batched",
    "per_sample_vmap",
    "per_sample_closed_form",
    "METHODS",
]

LossFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _check(model: nn.Module, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError("loss_fn must be callable")
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError("x and y must be tensors")
    if x.ndim == 0 or x.shape[0] == 0 or x.shape[0] != y.shape[0]:
        raise ValueError(
            f"x and y need the same non-empty batch dimension, got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    params = {n: p for n, p in model.named_parameters() if p.requires_grad}
    if not params:
        raise ValueError("model has no parameters that require grad")
    return params


def per_sample_loop(
    model: nn.Module, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor
) -> dict[str, torch.Tensor]:
    """(a) One forward and one backward per sample (batch size 1)."""
    params = _check(model, loss_fn, x, y)
    rows = []
    for i in range(x.shape[0]):
        loss = loss_fn(model(x[i : i + 1]), y[i : i + 1]).sum()
        rows.append(torch.autograd.grad(loss, list(params.values())))
    return {n: torch.stack([r[k] for r in rows]) for k, n in enumerate(params)}


def per_sample_unreduced(
    model: nn.Module, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor
) -> dict[str, torch.Tensor]:
    """(b) One batched forward, then one backward per element of the unreduced loss."""
    params = _check(model, loss_fn, x, y)
    losses = loss_fn(model(x), y)
    rows = [
        torch.autograd.grad(losses[i], list(params.values()), retain_graph=True) for i in range(x.shape[0])
    ]
    return {n: torch.stack([r[k] for r in rows]) for k, n in enumerate(params)}


def per_sample_grads_batched(
    model: nn.Module, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor
) -> dict[str, torch.Tensor]:
    """(c) One batched forward, one batched backward: ``is_grads_batched`` with one-hot seeds ``eye(B)``."""
    params = _check(model, loss_fn, x, y)
    losses = loss_fn(model(x), y)
    seeds = torch.eye(x.shape[0], dtype=losses.dtype, device=losses.device)
    grads = torch.autograd.grad(losses, list(params.values()), grad_outputs=seeds, is_grads_batched=True)
    return dict(zip(params, grads))


def per_sample_vmap(
    model: nn.Module, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor, randomness: str = "error"
) -> dict[str, torch.Tensor]:
    """(d) ``torch.func``: the gradient of one sample's loss, vectorised over the batch with ``vmap``.

    ``randomness="different"`` lets dropout draw a different mask per sample.
    """
    params = _check(model, loss_fn, x, y)
    if randomness not in ("error", "same", "different"):
        raise ValueError(f"randomness must be 'error', 'same' or 'different', got {randomness!r}")
    detached = {n: p.detach() for n, p in params.items()}
    buffers = dict(model.named_buffers())

    def one_sample_loss(p: dict[str, torch.Tensor], xi: torch.Tensor, yi: torch.Tensor) -> torch.Tensor:
        out = torch.func.functional_call(model, (p, buffers), (xi.unsqueeze(0),))
        return loss_fn(out, yi.unsqueeze(0)).sum()

    return torch.func.vmap(torch.func.grad(one_sample_loss), in_dims=(None, 0, 0), randomness=randomness)(
        detached, x, y
    )


def per_sample_closed_form(
    model: nn.Sequential, loss_fn: LossFn, x: torch.Tensor, y: torch.Tensor
) -> dict[str, torch.Tensor]:
    """(e) For a Sequential of ``nn.Linear`` and parameter-free layers: per-sample ``dW = g ⊗ a``, ``db = g``.

    ``a`` is the layer's input and ``g`` the gradient of the summed loss w.r.t. the layer's output;
    samples do not interact, so row i of ``g`` is sample i's own gradient. This is the trick DP-SGD
    libraries (Opacus) use. Layers that mix samples (BatchNorm in train mode) break it.
    """
    params = _check(model, loss_fn, x, y)
    if not isinstance(model, nn.Sequential):
        raise ValueError("per_sample_closed_form needs an nn.Sequential")
    for layer in model:
        if not isinstance(layer, nn.Linear) and any(True for _ in layer.parameters()):
            raise ValueError(
                f"per_sample_closed_form supports only nn.Linear layers with parameters, got "
                f"{type(layer).__name__}"
            )
    inputs, outputs, names = [], [], []
    h = x
    for name, layer in model.named_children():
        if isinstance(layer, nn.Linear):
            inputs.append(h)
            h = layer(h)
            outputs.append(h)
            names.append(name)
        else:
            h = layer(h)
    g_out = torch.autograd.grad(loss_fn(h, y).sum(), outputs)
    result = {}
    for name, a, g in zip(names, inputs, g_out):
        result[f"{name}.weight"] = torch.einsum("bo,bi->boi", g, a)
        if f"{name}.bias" in params:
            result[f"{name}.bias"] = g
    return {n: result[n] for n in params}


METHODS: dict[str, Callable[..., dict[str, torch.Tensor]]] = {
    "(a) batch-size-1 loop": per_sample_loop,
    "(b) unreduced loss + loop": per_sample_unreduced,
    "(c) is_grads_batched": per_sample_grads_batched,
    "(d) vmap(grad)": per_sample_vmap,
    "(e) closed form (Linear)": per_sample_closed_form,
}
