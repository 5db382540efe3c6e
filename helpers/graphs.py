"""Render Graphviz graphs (e.g. torchviz's ``make_dot``) to PNG for notebooks.

PNG, not SVG: nbval compares SVG text, and torchviz's node ids are ``id()`` values
that change every run. ``make setup`` links ``.venv/bin/dot`` to graphviz-pure.
"""

from __future__ import annotations

import shutil

__all__ = ["render_png"]


def render_png(graph, fontname: str = "Courier") -> bytes:  # noqa: ANN001 - graphviz.Digraph, optional import
    """Return ``graph`` rendered as PNG bytes.

    ``fontname`` replaces torchviz's ``monospace``, for which graphviz-pure has no metrics
    (it would print a warning to stderr, which ends up in the notebook).
    """
    if not hasattr(graph, "pipe") or not hasattr(graph, "node_attr"):
        raise TypeError(f"graph must be a graphviz.Digraph/Graph, got {type(graph).__name__}")
    if not isinstance(fontname, str) or not fontname:
        raise ValueError("fontname must be a non-empty string")
    if shutil.which("dot") is None:
        raise RuntimeError(
            "Graphviz 'dot' not found on PATH: run `make setup` (links .venv/bin/dot) "
            "or install Graphviz, and start Jupyter via `make lab`"
        )
    graph.node_attr.update(fontname=fontname)
    return graph.pipe(format="png")
