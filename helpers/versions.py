"""Branching a check on the running torch version, so one claim holds on every version it is run on.

A claim whose behaviour changed between releases asserts the behaviour of the running version::

    prefix = "addmm: " if since("2.15") else ""

The site reads ``since("X.Y")`` calls in claim cells to list the claim on its "what changed" page.
Compare versions with :func:`since`, never as strings (``"2.9.1" < "2.13"`` is False).
"""

from __future__ import annotations

import re

import torch

__all__ = ["parse_version", "since", "torch_release"]

_VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")
_STRICT_RE = re.compile(r"^\d+\.\d+(?:\.\d+)?$")


def parse_version(version: str) -> tuple[int, int, int]:
    """``"2.15.0+cu132"`` -> ``(2, 15, 0)``; ``"2.14"`` -> ``(2, 14, 0)``.

    Local tags and pre-release suffixes are dropped."""
    if not isinstance(version, str):
        raise ValueError(f"version must be a string like '2.15' or '2.15.0', got {version!r}")
    m = _VERSION_RE.match(version.strip())
    if not m:
        raise ValueError(f"version must look like '2.15' or '2.15.0', got {version!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def torch_release() -> tuple[int, int, int]:
    """The running torch as ``(major, minor, patch)``."""
    return parse_version(torch.__version__)


def since(version: str) -> bool:
    """True when the running torch is ``version`` or newer (``since("2.15")`` on 2.15.0+cu132 is True).

    ``version`` must be plain (``"2.15"`` or ``"2.15.0"``), so a typo fails loudly. The running version is
    read leniently: a pre-release or nightly of 2.15 (``2.15.0a0+git…``) counts as 2.15.
    """
    if not isinstance(version, str) or not _STRICT_RE.match(version):
        raise ValueError(f"since() needs a plain version like '2.15' or '2.15.0', got {version!r}")
    return torch_release() >= parse_version(version)
