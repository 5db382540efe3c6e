"""The flake8 plugin: ``flake8 --select FNC`` reports the same findings as ``fieldnotes check``.

Registered under ``[project.entry-points."flake8.extension"]`` as ``FNC``. flake8 does the rest: file
discovery, configuration, ``--select``/``--extend-ignore``, ``# noqa`` and reporting; the rules read the
``ast`` flake8 has already parsed. This is the route for ``.py`` files (flake8's config files apply).
flake8 reads only Python files: for notebooks use nbQA (``nbqa flake8 --select FNC``, installed
separately) or ``fieldnotes check``, which also rewrites findings (``--fix``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from typing import Any

from fieldnotes import __version__
from fieldnotes.check.base import Source
from fieldnotes.check.engine import Finding, run_rules
from fieldnotes.check.rules import RULES


class FieldNotesChecker:
    """flake8 AST plugin (flake8 passes ``tree`` and ``lines`` by parameter name)."""

    name = "fieldnotes"
    version = __version__

    def __init__(self, tree: ast.Module, lines: Sequence[str]) -> None:
        self.tree = tree
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        """(line, column, "FNC0nn message", type) for every finding; flake8 applies noqa and --select."""
        for f in run_rules(Source("".join(self.lines), self.tree), RULES):
            yield f.line, f.column, Finding(f.code, f.line, f.column, f.fixable).text, type(self)
