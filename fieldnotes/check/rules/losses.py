"""Rules of notebook 08 (losses): activations fed to the wrong loss.

:class:`TensorRule` (activation and loss helpers), log of a softmax, ``BCELoss`` on a sigmoid, a sigmoid
before ``BCEWithLogitsLoss``, cross-entropy on a softmax and ``kl_div``'s mean reduction.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import Rule, get_arg, has_star_args, is_const, method_call, positional, rule
from fieldnotes.check.rules.common import FUNC, nn_classes, renamed_method, unwrapped

if TYPE_CHECKING:
    import libcst as cst


class TensorRule(Rule):
    """Helpers for rules about activations and losses."""

    SIGMOID = frozenset({"torch.sigmoid", "torch.special.expit", f"{FUNC}.sigmoid"})
    SOFTMAX = frozenset({"torch.softmax", "torch.special.softmax", f"{FUNC}.softmax"})

    def activation(self, node: ast.AST | None, functions: frozenset[str], method: str, module: str) -> bool:
        """``node`` applies an activation: one of torch's ``functions``, the tensor ``method`` (on a receiver
        that resolves to no import, e.g. not ``scipy.special``), or an ``nn.<module>()(x)``."""
        if not isinstance(node, ast.Call):
            return False
        names = self.src.callee(node)
        if names:
            return not names.isdisjoint(functions)
        if method_call(node, method):
            return True
        return self.src.calls(node.func, nn_classes(module))

    def is_sigmoid(self, node: ast.AST | None) -> bool:
        """``torch.sigmoid(z)``, ``F.sigmoid(z)``, ``torch.special.expit(z)``, ``z.sigmoid()``,
        ``nn.Sigmoid()(z)``."""
        return self.activation(node, self.SIGMOID, "sigmoid", "Sigmoid") and not (
            method_call(node, "sigmoid") and node.args and not self.src.callee(node)
        )

    def plain_sigmoid(self, node: ast.AST) -> bool:
        """A sigmoid call that takes nothing but its input (what a rewrite may drop)."""
        if self.src.calls(node, self.SIGMOID):
            return len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)
        return method_call(node, "sigmoid") and not node.args and not node.keywords

    def is_softmax(self, node: ast.AST | None) -> bool:
        """``torch.softmax``/``F.softmax``/``torch.special.softmax`` calls, ``x.softmax(d)``,
        ``nn.Softmax(d)(x)``."""
        return self.activation(node, self.SOFTMAX, "softmax", "Softmax")

    def loss_call(self, node: ast.Call, functions: frozenset[str], classes: frozenset[str]) -> bool:
        """``node`` calls one of the loss ``functions``, or a loss object built from ``classes``
        (``nn.BCELoss()(...)``, ``criterion(...)`` after ``criterion = nn.BCELoss()``)."""
        return self.src.calls(node, functions) or self.src.built_by(node.func, classes)

    @staticmethod
    def loss_input(node: ast.Call) -> ast.expr | None:
        return get_arg(node, "input", 0)


# ============================================================================ 08 · losses
@rule(
    code="FNC017",
    name="log-of-softmax",
    title="log(softmax(x)) instead of log_softmax(x)",
    message="log(softmax(x)) is -inf (with NaN gradients) once two logits differ by more than about 87-104 "
    "in float32",
    fix="log_softmax(x, dim) (F.log_softmax, torch.log_softmax, x.log_softmax)",
    claim="08-C2",
    autofix="unsafe",
    unsafe_because="log_softmax returns finite values and gradients where log(softmax) gave -inf and NaN, "
    "so results change wherever that happened (code may also test for the -inf); and x.softmax(d).log() "
    "is rewritten on any receiver with a softmax method, not only a tensor",
    demo="notebooks/08_losses.ipynb",
)
class LogOfSoftmax(TensorRule):
    """``torch.log(softmax(x))``, ``softmax(x).log()``, also with an index between
    (``torch.log(softmax(x)[i])``). ``--fix --unsafe-fixes`` renames ``softmax`` to ``log_softmax`` (same
    arguments): the same values where the naive form was finite, others where it was not (hence unsafe).
    (``log(softmax(x) + eps)`` is not flagged.)"""

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, {"torch.log"}) and len(node.args) == 1 and not node.keywords:
            inner = node.args[0]
        elif method_call(node, "log") and not node.args and not node.keywords:
            inner = node.func.value
        else:
            return
        softmax = inner.value if isinstance(inner, ast.Subscript) else inner
        if self.is_softmax(softmax):
            fixable = isinstance(softmax.func, ast.Attribute) and softmax.func.attr == "softmax"
            self.report(node, fixable=fixable)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call):
            return None
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "log" and not node.args:
            inner = node.func.value  # softmax(x).log()
        elif len(node.args) == 1:
            inner = node.args[0].value  # torch.log(softmax(x))
        else:
            return None
        index = inner if isinstance(inner, cst.Subscript) else None
        log_softmax = renamed_method(index.value if index is not None else inner, "log_softmax")
        if log_softmax is None:
            return None
        return unwrapped(node, index.with_changes(value=log_softmax) if index is not None else log_softmax)


BCE = (frozenset({f"{FUNC}.binary_cross_entropy"}), nn_classes("BCELoss"))
BCE_LOGITS = (frozenset({f"{FUNC}.binary_cross_entropy_with_logits"}), nn_classes("BCEWithLogitsLoss"))


@rule(
    code="FNC018",
    name="bce-on-sigmoid",
    title="BCELoss on a sigmoid output",
    message="float32 sigmoid is exactly 1 from a logit of about 17, where BCELoss returns its clamp 100 "
    "with a zero gradient",
    fix="BCEWithLogitsLoss / F.binary_cross_entropy_with_logits on the logits",
    claim="08-C10",
    autofix="unsafe",
    unsafe_because="the with-logits loss is the same function of z only where the sigmoid did not "
    "saturate: where BCELoss returned its clamp 100 with a zero gradient, it returns the true (larger) loss "
    "and a gradient, so training changes",
    demo="notebooks/08_losses.ipynb",
)
class BceOnSigmoid(TensorRule):
    """``nn.BCELoss()(torch.sigmoid(z), t)``, ``F.binary_cross_entropy(z.sigmoid(), t)``, or a criterion
    built from ``nn.BCELoss`` called on a sigmoid. ``--fix --unsafe-fixes`` (where the loss and the sigmoid
    are written in the call itself, as ``F.binary_cross_entropy``/``nn.BCELoss(...)`` attributes) drops the
    sigmoid and switches to the with-logits loss: the same function of z, computed stably, so other values
    where the sigmoid saturated (hence unsafe). Comments in the sigmoid's parentheses are kept."""

    def visit_Call(self, node: ast.Call) -> None:
        if not self.loss_call(node, *BCE):
            return
        value = self.loss_input(node)
        if value is None or not self.is_sigmoid(value):
            return
        func = node.func
        spelled = (isinstance(func, ast.Attribute) and self.src.calls(node, BCE[0])) or (
            isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute)
        )
        first = positional(node)[:1] == [value]
        self.report(node, fixable=spelled and first and self.plain_sigmoid(value))

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call) or not node.args:
            return None
        sig = node.args[0].value
        if not isinstance(sig, cst.Call):
            return None
        if isinstance(sig.func, cst.Attribute) and sig.func.attr.value == "sigmoid" and not sig.args:
            z = unwrapped(sig, sig.func.value)
        elif len(sig.args) == 1:
            z = unwrapped(sig, sig.args[0].value)
        else:
            return None
        if z is None:
            return None
        func = node.func
        if isinstance(func, cst.Attribute):
            new_func = func.with_changes(attr=cst.Name("binary_cross_entropy_with_logits"))
        elif isinstance(func, cst.Call) and isinstance(func.func, cst.Attribute):
            new_func = func.with_changes(func=func.func.with_changes(attr=cst.Name("BCEWithLogitsLoss")))
        else:
            return None
        return node.with_changes(func=new_func, args=[node.args[0].with_changes(value=z), *node.args[1:]])


@rule(
    code="FNC019",
    name="sigmoid-before-bce-with-logits",
    title="sigmoid applied before BCEWithLogitsLoss",
    message="BCEWithLogitsLoss applies the sigmoid itself; on sigmoid outputs it computes a different, "
    "wrong loss without any error",
    fix="pass the logits themselves",
    claim="08-C17",
    demo="notebooks/08_losses.ipynb",
)
class SigmoidBeforeBceWithLogits(TensorRule):
    """``BCEWithLogitsLoss``/``binary_cross_entropy_with_logits`` whose input is a sigmoid output."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.loss_call(node, *BCE_LOGITS) and self.is_sigmoid(self.loss_input(node)):
            self.report(node)


CE = (
    frozenset({f"{FUNC}.cross_entropy", f"{FUNC}.nll_loss"}),
    nn_classes("CrossEntropyLoss", "NLLLoss"),
)


@rule(
    code="FNC020",
    name="cross-entropy-on-softmax",
    title="CrossEntropyLoss (or NLLLoss) on softmax outputs",
    message="CrossEntropyLoss applies log_softmax itself (NLLLoss expects log-probabilities): on "
    "probabilities the loss is wrong, cannot fall below log(1 + (C-1)/e), and its gradients are small",
    fix="pass the logits to CrossEntropyLoss (log_softmax outputs to NLLLoss)",
    claim="08-C11",
    demo="notebooks/08_losses.ipynb",
)
class CrossEntropyOnSoftmax(TensorRule):
    """``cross_entropy``/``CrossEntropyLoss``/``nll_loss``/``NLLLoss`` whose input is a softmax output (soft
    targets that are softmax outputs are fine)."""

    def visit_Call(self, node: ast.Call) -> None:
        if self.loss_call(node, *CE) and self.is_softmax(self.loss_input(node)):
            self.report(node)


@rule(
    code="FNC021",
    name="kl-div-mean",
    title="KLDivLoss / kl_div with reduction='mean' (the default)",
    message="reduction='mean' also divides by the number of classes, so it is not the KL divergence "
    "(and warns)",
    fix="reduction='batchmean'",
    claim="08-C13",
    demo="notebooks/08_losses.ipynb",
)
class KlDivMean(Rule):
    """``nn.KLDivLoss()`` / ``F.kl_div(...)`` without ``reduction`` or with ``reduction="mean"`` (calls
    that use the legacy ``size_average``/``reduce`` are left alone)."""

    #: Positional arguments before the legacy ``size_average``: more means a legacy call.
    POSITIONAL = {f"{FUNC}.kl_div": 2, **{n: 0 for n in nn_classes("KLDivLoss")}}

    def visit_Call(self, node: ast.Call) -> None:
        names = self.src.callee(node) & self.POSITIONAL.keys()
        if not names or has_star_args(node) or get_arg(node, "size_average") or get_arg(node, "reduce"):
            return
        if len(positional(node)) > self.POSITIONAL[names.pop()]:
            return
        reduction = get_arg(node, "reduction")
        if reduction is None or is_const(reduction, "mean"):
            self.report(node)
