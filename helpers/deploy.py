"""Deployment helpers for notebook 15: a quiet ONNX export, channel significance and channel removal
for pruning. Notebook 16 uses ``captured_output`` too, around a gloo process group's start."""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator

import torch
from torch import nn

__all__ = ["captured_output", "export_onnx", "channel_significance", "drop_channels"]


@contextlib.contextmanager
def captured_output() -> Iterator[io.StringIO]:
    """Capture everything a block prints: Python stdout/stderr, logging, warnings, and C++ writes to fd 1/2.

    The ONNX exporter prints progress lines, logs through ``logging`` (with timestamps and PIDs),
    warns, and its C++ parts write to the process's file descriptors — in a notebook all of that
    would land in the stored output. The captured text is yielded for inspection.
    """
    buffer = io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        previous_disable = logging.root.manager.disable
        logging.disable(logging.CRITICAL)
        try:
            with (
                warnings.catch_warnings(),
                contextlib.redirect_stdout(buffer),
                contextlib.redirect_stderr(buffer),
            ):
                warnings.simplefilter("ignore")
                yield buffer
        finally:
            logging.disable(previous_disable)
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved_fds[0], 1)
            os.dup2(saved_fds[1], 2)
            for fd in saved_fds:
                os.close(fd)
            sink.seek(0)
            buffer.write(sink.read().decode("utf-8", "replace"))


def export_onnx(model: nn.Module, example: tuple, path: str, **kwargs) -> str:
    """``torch.onnx.export(model, example, path, dynamo=True, **kwargs)`` without any output; returns the
    log."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    if not isinstance(example, tuple):
        raise TypeError("example must be a tuple of inputs, e.g. (x,)")
    with captured_output() as log:
        torch.onnx.export(model, example, path, dynamo=True, **kwargs)
    return log.getvalue()


def channel_significance(model: nn.Module, rel_threshold: float = 1e-3) -> dict[str, list[int]]:
    """Output channels whose importance is below ``rel_threshold`` × the layer's maximum.

    Importance: mean |W| over each output channel for Conv2d/ConvTranspose2d (ConvTranspose stores
    output channels in dim 1), |gamma| for BatchNorm2d. Returns ``{layer name: [channel indices]}``.
    """
    if not 0 < rel_threshold < 1:
        raise ValueError(f"rel_threshold must be in (0, 1), got {rel_threshold}")
    weak = {}
    for name, m in model.named_modules():
        if isinstance(m, nn.ConvTranspose2d):
            score = m.weight.detach().abs().mean(dim=(0, 2, 3))
        elif isinstance(m, nn.Conv2d):
            score = m.weight.detach().abs().mean(dim=(1, 2, 3))
        elif isinstance(m, nn.BatchNorm2d) and m.weight is not None:
            score = m.weight.detach().abs()
        else:
            continue
        weak[name] = [int(i) for i in torch.nonzero(score < rel_threshold * score.max()).flatten()]
    return weak


def _keep(t: torch.Tensor, dim: int, keep: torch.Tensor) -> nn.Parameter | torch.Tensor:
    sliced = t.detach().index_select(dim, keep).clone()
    return nn.Parameter(sliced, requires_grad=t.requires_grad) if isinstance(t, nn.Parameter) else sliced


def drop_channels(model: nn.Sequential, index: int, channels: list[int]) -> nn.Sequential:
    """A copy of ``model`` with output channels ``channels`` of the convolution ``model[index]`` removed.

    Structured pruning for a plain ``nn.Sequential``: the convolution (``Conv2d`` or ``ConvTranspose2d``,
    ``groups=1``) loses those output channels and their bias, every ``BatchNorm2d`` after it loses them
    (parameters and running statistics), and the next convolution loses the matching input channels.
    Modules in between must act per channel (activations, dropout, pooling); a ``Linear`` or any other
    module that mixes channels raises ``ValueError``. The original model is not modified.
    """
    if not isinstance(model, nn.Sequential):
        raise TypeError(f"model must be an nn.Sequential, got {type(model).__name__}")
    convs = (nn.Conv2d, nn.ConvTranspose2d)
    if not 0 <= index < len(model) or not isinstance(model[index], convs):
        raise ValueError(f"model[{index}] must be a Conv2d or ConvTranspose2d")
    layer = model[index]
    n_out = layer.out_channels
    drop = sorted(set(int(c) for c in channels))
    if not drop or drop[0] < 0 or drop[-1] >= n_out or len(drop) == n_out:
        raise ValueError(f"channels must be a non-empty proper subset of range({n_out}), got {channels}")
    pruned = copy.deepcopy(model)
    keep = torch.tensor([c for c in range(n_out) if c not in drop], dtype=torch.long)
    conv = pruned[index]
    if conv.groups != 1:
        raise ValueError("grouped convolutions are not supported")
    conv.weight = _keep(conv.weight, 1 if isinstance(conv, nn.ConvTranspose2d) else 0, keep)
    if conv.bias is not None:
        conv.bias = _keep(conv.bias, 0, keep)
    conv.out_channels = len(keep)
    per_channel = (
        nn.ReLU,
        nn.LeakyReLU,
        nn.ReLU6,
        nn.ELU,
        nn.SELU,
        nn.GELU,
        nn.SiLU,
        nn.Sigmoid,
        nn.Tanh,
        nn.Identity,
        nn.Dropout,
        nn.Dropout2d,
        nn.MaxPool2d,
        nn.AvgPool2d,
    )
    for m in list(pruned)[index + 1 :]:
        if isinstance(m, nn.BatchNorm2d):
            if m.affine:
                m.weight, m.bias = _keep(m.weight, 0, keep), _keep(m.bias, 0, keep)
            if m.track_running_stats:
                m.running_mean, m.running_var = _keep(m.running_mean, 0, keep), _keep(m.running_var, 0, keep)
            m.num_features = len(keep)
        elif isinstance(m, convs):
            if m.groups != 1:
                raise ValueError("grouped convolutions are not supported")
            m.weight = _keep(m.weight, 0 if isinstance(m, nn.ConvTranspose2d) else 1, keep)
            m.in_channels = len(keep)
            return pruned
        elif not isinstance(m, per_channel):
            raise ValueError(f"cannot drop channels through {type(m).__name__}")
    return pruned
