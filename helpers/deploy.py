"""Deployment helpers for notebook 15: a quiet ONNX export and channel significance for pruning."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator

import torch
from torch import nn

__all__ = ["captured_output", "export_onnx", "channel_significance"]


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
            with warnings.catch_warnings(), contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
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
    """``torch.onnx.export(model, example, path, dynamo=True, **kwargs)`` without any output; returns the log."""
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
