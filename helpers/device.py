"""Device selection and an environment report."""

from __future__ import annotations

import contextlib
import os
import platform
import sys
from collections.abc import Iterator

import torch

__all__ = ["pick_device", "env_report", "format_report", "has_cuda", "patched_environ"]

_KINDS = ("auto", "cpu", "cuda")


def has_cuda() -> bool:
    """True when this torch build has CUDA and a device is usable."""
    return torch.cuda.is_available()


def pick_device(prefer: str = "auto") -> torch.device:
    """Return ``cuda`` when available and wanted, else ``cpu``.

    ``prefer`` is ``"auto"`` (CUDA if present), ``"cpu"``, or ``"cuda"`` (raise if absent).
    """
    if prefer not in _KINDS:
        raise ValueError(f"prefer must be one of {_KINDS}, got {prefer!r}")
    if prefer == "cpu":
        return torch.device("cpu")
    if has_cuda():
        return torch.device("cuda")
    if prefer == "cuda":
        raise RuntimeError("CUDA was requested but torch.cuda.is_available() is False")
    return torch.device("cpu")


def env_report() -> dict[str, object]:
    """Versions and devices that decide what a notebook's numbers mean."""
    cuda = has_cuda()
    report: dict[str, object] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch built with CUDA": torch.version.cuda,  # None on CPU wheels
        "cuDNN": torch.backends.cudnn.version() if cuda else None,
        "CUDA available": cuda,
        "device count": torch.cuda.device_count() if cuda else 0,
        "device name": torch.cuda.get_device_name(0) if cuda else None,
        "CPU capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "platform": sys.platform,
    }
    return report


def format_report(report: dict[str, object] | None = None) -> str:
    """Render :func:`env_report` as aligned ``key : value`` lines."""
    report = env_report() if report is None else report
    if not isinstance(report, dict):
        raise TypeError("report must be a dict")
    width = max((len(k) for k in report), default=0)
    return "\n".join(f"{k:<{width}} : {v}" for k, v in report.items())


@contextlib.contextmanager
def patched_environ(**changes: str | None) -> Iterator[None]:
    """Temporarily set (str) or unset (None) environment variables, then restore them.

    Only variables that the code under study *re-reads* are affected: this does
    not undo what a library already cached at import or initialisation time.
    """
    for key, value in changes.items():
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{key}: value must be a str or None, got {type(value).__name__}")
    saved = {key: os.environ.get(key) for key in changes}
    try:
        for key, value in changes.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
