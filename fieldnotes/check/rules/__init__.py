"""The rules of ``fieldnotes check``: one class per pitfall, each citing the claim that proves it.

:data:`RULES` is the machine-readable registry (code, title, message, fix, claim, site URL, TorchFix
overlap, autofix, the file that shows the wrong way), in code order; the site renders it as a page and
``fieldnotes rules --json`` prints it.

Precision comes before recall: a rule fires on a pattern that is wrong wherever it appears
(``BCELoss()(torch.sigmoid(z), t)``), not on one that is merely suspicious. Where a name decides it (an
optimizer passed in as a parameter) the rule's docstring says so.

The rules are in one module per notebook section, imported here in the order they register (the order of
:data:`~fieldnotes.check.base.REGISTRY`): ``environment`` (00), ``tensors`` (01), ``autograd`` (02),
``modules`` (04, 05, 07), ``losses`` (08), ``training`` (09, 10), ``data`` (12), ``distributed`` (13),
``saving`` (15) and ``gallery`` (16); ``common`` holds the helpers they share.
"""

from __future__ import annotations

from fieldnotes.check.base import REGISTRY, RuleInfo

# Importing a module registers its rules: keep this order (isort would sort it).
# isort: off
from fieldnotes.check.rules import environment  # noqa: F401
from fieldnotes.check.rules import tensors  # noqa: F401
from fieldnotes.check.rules import autograd  # noqa: F401
from fieldnotes.check.rules import modules  # noqa: F401
from fieldnotes.check.rules import losses  # noqa: F401
from fieldnotes.check.rules import training  # noqa: F401
from fieldnotes.check.rules import data  # noqa: F401
from fieldnotes.check.rules import distributed  # noqa: F401
from fieldnotes.check.rules import saving  # noqa: F401
from fieldnotes.check.rules import gallery  # noqa: F401

# isort: on
from fieldnotes.check.rules.tensors import permute_runs, permute_view_ok

#: The registry, in code order: what the site's rules page and ``fieldnotes rules --json`` show.
RULES: tuple[RuleInfo, ...] = tuple(REGISTRY[code] for code in sorted(REGISTRY))

__all__ = ["RULES", "permute_runs", "permute_view_ok"]
