"""Rules of notebook 16 (error gallery): code written for an old PyTorch.

``torch._six`` (removed in PyTorch 2.0) and ``loss.data[0]`` on a 0-dim loss (PyTorch 0.3 code).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    Rule,
    dotted,
    get_arg,
    has_star_args,
    int_value,
    is_const,
    last_name,
    method_call,
    positional,
    rule,
)
from fieldnotes.check.rules.common import (
    FUNCTIONS,
    bound_before,
    in_block_around,
    local_def,
    own_nodes,
    unchained,
)
from fieldnotes.check.rules.training import LOSS_CLASS, LOSS_FUNCTIONS

if TYPE_CHECKING:
    import libcst as cst


# ============================================================================ 16 · error gallery
IMPORT_ERRORS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
)


def binds(stmts: list[ast.stmt], names: Collection[str]) -> bool:
    """``stmts`` import, assign or define one of ``names``."""
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name.split(".")[0]) in names for a in n.names):
                    return True
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names:
                return True
            elif isinstance(n, (*FUNCTIONS, ast.ClassDef)) and n.name in names:
                return True
    return False


@rule(
    code="FNC034",
    name="torch-six",
    title="import of torch._six, removed in PyTorch 2.0",
    message='torch._six was removed in PyTorch 2.0: importing it raises ModuleNotFoundError "No module '
    "named 'torch._six'\" (torch._six.inf an AttributeError)",
    fix="replace the names: inf -> math.inf (or torch.inf), string_classes -> str, int_classes -> int, "
    "container_abcs -> collections.abc; or upgrade the library that imports it",
    claim="16-C56",
    demo="notebooks/16_error_gallery.ipynb",
)
class TorchSix(Rule):
    """``from torch._six import ...``, ``import torch._six``, ``from torch import _six`` and
    ``torch._six.<name>``; not as a fallback: in a ``try`` whose handler (``except ImportError``, ...)
    provides the names (or only passes), or under a version test (``if TORCH_VERSION < (1, 9):``) or an
    ``if`` whose other branch provides them."""

    def fallback(self, node: ast.AST, names: Collection[str]) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, ast.Try) and child in a.body:
                for h in a.handlers:
                    caught = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                    if h.type is None or any(last_name(t) in IMPORT_ERRORS for t in caught):
                        if binds(h.body, names) or all(isinstance(s, ast.Pass) for s in h.body):
                            return True
            elif isinstance(a, ast.If) and child is not a.test:
                if any("version" in (last_name(n) or "").lower() for n in ast.walk(a.test)):
                    return True
                if binds(a.orelse if child in a.body else a.body, names):
                    return True
            child = a
        return False

    def visit_Import(self, node: ast.Import) -> None:
        names = [
            a.asname or a.name.split(".")[0] for a in node.names if a.name.split(".")[:2] == ["torch", "_six"]
        ]
        if names and not self.fallback(node, names):
            self.report(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level or not (
            module.split(".")[:2] == ["torch", "_six"]
            or (module == "torch" and any(a.name == "_six" for a in node.names))
        ):
            return
        if not self.fallback(node, [a.asname or a.name for a in node.names]):
            self.report(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (
            node.attr != "_six"
            or not isinstance(node.ctx, ast.Load)
            or "torch._six" not in self.src.qnames(node)
        ):
            return
        stmt = self.src.enclosing(node, ast.stmt)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if not self.fallback(node, names):
            self.report(node)


@rule(
    code="FNC035",
    name="loss-data-index",
    title="loss.data[0] (PyTorch 0.3 code) on a 0-dim loss",
    message="since PyTorch 0.4 a reduced loss is a 0-dim tensor, and loss.data[0] raises IndexError "
    "'invalid index of a 0-dim tensor. Use `tensor.item()`'",
    fix="loss.item()",
    claim="16-C33",
    autofix="safe",
    demo="notebooks/16_error_gallery.ipynb",
)
class LossDataIndex(Rule):
    """``x.data[0]`` where ``x`` is a reduced loss: a call (or a name bound only to calls) of a loss function
    (``F.mse_loss(...)``) or of a criterion built from a ``torch.nn`` loss class (``criterion =
    nn.CrossEntropyLoss().cuda()``), with ``reduction`` absent, ``"mean"`` or ``"sum"`` and no legacy
    ``size_average``/``reduce``, or a whole-tensor ``.mean()``/``.sum()``; or a name with ``loss`` in it
    that the same function backpropagates with a bare ``x.backward()`` (only a one-element tensor can be).
    Also a call of a function of the same file (a notebook's cells are one module) whose every ``return``
    gives such a loss: its negation, its sum, difference, product or quotient with a number or another
    such loss, or a name last bound to one (RL-Adventure's ``loss = compute_td_loss(batch_size)`` then
    ``losses.append(loss.data[0])``, the function in another cell returning ``loss = (...).pow(2).mean()``).
    ``--fix`` writes ``x.item()`` where the loss is one of those calls: the index could only raise there."""

    @staticmethod
    def reduced(call: ast.Call) -> bool:
        """No ``reduction="none"``, and no legacy ``reduce=`` other than True (``size_average`` only picks
        mean or sum)."""
        reduction, legacy = get_arg(call, "reduction"), get_arg(call, "reduce")
        return (reduction is None or is_const(reduction, "mean") or is_const(reduction, "sum")) and (
            legacy is None or is_const(legacy, True)
        )

    def loss_call(self, node: ast.AST) -> bool:
        """``node`` calls a loss that returns a 0-dim tensor, or reduces a whole tensor to one
        (``out.pow(2).mean()``, ``x.sum()``: no ``dim``)."""
        if not isinstance(node, ast.Call) or has_star_args(node):
            return False
        if (method_call(node, "mean") or method_call(node, "sum")) and not node.args and not node.keywords:
            return True
        if self.src.calls(node, LOSS_FUNCTIONS):
            return self.reduced(node)
        makers = [node.func] if isinstance(node.func, ast.Call) else self.src.values(node.func)
        return bool(makers) and all(self.loss_maker(unchained(m)) for m in makers or [])

    def loss_maker(self, node: ast.AST | None) -> bool:
        """``node`` builds a reducing loss module: ``nn.MSELoss()``, ``nn.CrossEntropyLoss(weight)``."""
        return (
            isinstance(node, ast.Call)
            and any(LOSS_CLASS.fullmatch(n) and "Adaptive" not in n for n in self.src.callee(node))
            and len(positional(node)) <= 1
            and self.reduced(node)
        )

    def number(self, node: ast.AST) -> bool:
        """An int or float literal, or a name bound only to them (``num_quant = 51``)."""
        values = [node] if isinstance(node, ast.Constant) else self.src.values(node) or []
        return bool(values) and all(
            isinstance(v, ast.Constant) and type(v.value) in (int, float) for v in values
        )

    def zero_dim(self, node: ast.AST | None, at: ast.AST, depth: int = 0) -> bool:
        """``node``, evaluated at ``at``, is a 0-dim loss: a :meth:`loss_call`, its negation, arithmetic of it
        with numbers or other such losses, or a name whose last binding before ``at`` (in a block around
        it) is one."""
        if node is None or depth > 4:
            return False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.zero_dim(node.operand, at, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            sides = [self.zero_dim(s, at, depth + 1) for s in (node.left, node.right)]
            return any(sides) and all(z or self.number(s) for z, s in zip(sides, (node.left, node.right)))
        if isinstance(node, ast.Name):
            last = bound_before(self.src, node.id, at)
            if last is None or last[1] is None or not in_block_around(self.src, last[0], at):
                return False
            return self.zero_dim(last[1], last[0], depth + 1)
        return self.loss_call(node)

    def returns_loss(self, call: ast.AST) -> bool:
        """``call`` calls a function of this file whose every ``return`` gives a 0-dim loss."""
        fn = local_def(self.src, call.func, ast.FunctionDef) if isinstance(call, ast.Call) else None
        if fn is None:
            return False
        returns = [n for n in own_nodes(fn) if isinstance(n, ast.Return)]
        if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(fn)):
            return False
        return all(self.zero_dim(r.value, r) for r in returns)

    def backpropagated(self, base: ast.AST) -> bool:
        """``base``, a name with ``loss`` in it, is backpropagated with a bare ``backward()`` in its function
        (only a one-element tensor can be), or is an operand of a sum, difference, product or quotient that
        is (ssd.pytorch's ``loss = loss_l + loss_c`` then ``loss.backward()``: broadcasting never makes a
        result smaller than an operand, so each is one element too)."""
        name = dotted(base)
        if name is None or "loss" not in name.lower():
            return False
        nodes = list(own_nodes(self.src.function_or_module(base)))
        backed = {
            dotted(n.func.value)
            for n in nodes
            if method_call(n, "backward") and not n.args and not n.keywords
        }
        if name in backed:
            return True
        return any(
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and dotted(n.targets[0]) in backed
            and isinstance(n.value, ast.BinOp)
            and name in self.operands(n.value)
            for n in nodes
        )

    @classmethod
    def operands(cls, node: ast.AST) -> set[str]:
        """The names a tree of ``+ - * /`` (and negation) combines: ``loss_l + 0.5 * loss_c``."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return cls.operands(node.left) | cls.operands(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return cls.operands(node.operand)
        name = dotted(node)
        return {name} if name else set()

    def visit_Subscript(self, node: ast.Subscript) -> None:
        data = node.value
        if not (isinstance(node.ctx, ast.Load) and isinstance(data, ast.Attribute) and data.attr == "data"):
            return
        if int_value(node.slice) != 0:
            return
        base = data.value
        values = [base] if isinstance(base, ast.Call) else self.src.values(base)
        if values and all(self.loss_call(v) or self.returns_loss(v) for v in values):
            self.report(node, fixable=True)
        elif self.backpropagated(base):
            self.report(node)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute)):
            return None
        item = cst.Attribute(value=node.value.value, attr=cst.Name("item"))
        return cst.Call(func=item, lpar=node.lpar, rpar=node.rpar)
