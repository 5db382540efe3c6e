"""One plotting style, and figure files written only when notebooks are executed.

``make execute`` sets ``FIELDNOTES_SAVE_FIGURES=1``; under ``make test`` it is
unset, so tests never write into ``figures/`` and the tree stays clean.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib.pyplot as plt

__all__ = ["apply_style", "save_figure", "FIGURES_DIR", "SAVE_ENV"]

FIGURES_DIR = Path(__file__).resolve().parent.parent / "figures"
SAVE_ENV = "FIELDNOTES_SAVE_FIGURES"
_NAME_RE = re.compile(r"^[0-9]{2}_[a-z0-9_]+\.png$")


def apply_style() -> None:
    """Consistent, readable defaults for every figure in the series."""
    plt.rcParams.update(
        {
            "figure.figsize": (6.4, 3.6),
            "figure.dpi": 90,
            "savefig.dpi": 110,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "font.size": 10,
            "svg.hashsalt": "fieldnotes",
        }
    )


def save_figure(fig: "plt.Figure", name: str) -> Path | None:
    """Write ``fig`` to ``figures/<name>`` when executing notebooks; else do nothing.

    ``name`` must look like ``NN_topic.png`` (notebook number first), so every
    figure file can be traced to the notebook that made it. Returns the path
    written, or ``None`` when saving is off.
    """
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"figure name must look like '00_topic.png', got {name!r}")
    if os.environ.get(SAVE_ENV) != "1":
        return None
    FIGURES_DIR.mkdir(exist_ok=True)
    path = FIGURES_DIR / name
    # Fixed metadata keeps the PNG byte-stable across runs of the same figure.
    fig.savefig(path, format="png", bbox_inches="tight", metadata={"Software": None})
    return path
