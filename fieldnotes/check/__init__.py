"""``fieldnotes check``: a linter whose every rule cites the executed claim that proves it.

Use it three ways: the console script ``fieldnotes check PATH...`` (``.py`` files and notebooks,
``--fix`` for the safe rewrites, ``--fix --unsafe-fixes`` also for those that may change what the code
computes), the flake8 plugin (codes ``FNC``; notebooks through ``nbqa flake8``), or the pre-commit hook
``fieldnotes-check`` (.pre-commit-hooks.yaml). The rules are ``ast`` visitors with LibCST rewrites
(:mod:`fieldnotes.check.rules`); :data:`RULES` is their registry.
"""

from fieldnotes.check.engine import Finding, check_code, fix_code, select_rules
from fieldnotes.check.rules import RULES

__all__ = ["RULES", "Finding", "check_code", "fix_code", "select_rules"]
