"""Rules of notebooks 04 (modules and hooks), 05 (dropout) and 07 (affine_grid).

The deprecated ``register_backward_hook``, ``nn.init`` applied to every parameter or without its
underscore, layers kept in a plain list or dict, a "best" ``state_dict()`` kept without a copy,
``F.dropout`` in ``forward`` without ``training=self.training``, and ``affine_grid``/``grid_sample``
without ``align_corners``.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    Rule,
    dotted,
    get_arg,
    has_star_args,
    is_const,
    is_self_attr,
    last_name,
    method_call,
    positional,
    rule,
)
from fieldnotes.check.rules.common import FUNC, FUNCTIONS, keyword_arg, own_nodes, renamed_method

if TYPE_CHECKING:
    import libcst as cst


# ============================================================================ 04 · modules and hooks
@rule(
    code="FNC010",
    name="register-backward-hook",
    title="Module.register_backward_hook is deprecated",
    message="register_backward_hook is deprecated and can report the wrong tensors as grad_input (those "
    "of the module's last operation)",
    fix="module.register_full_backward_hook(hook)",
    claim="04-C3",
    demo="notebooks/04_modules_hooks.ipynb",
)
class RegisterBackwardHook(Rule):
    """``<module>.register_backward_hook(...)`` and the global ``register_module_backward_hook``."""

    def visit_Call(self, node: ast.Call) -> None:
        if method_call(node, "register_backward_hook") or self.src.calls(
            node, {"torch.nn.modules.module.register_module_backward_hook"}
        ):
            self.report(node)


FAN_INITS = ("xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse")
SHAPED_INITS = frozenset(f"torch.nn.init.{n}{u}" for n in (*FAN_INITS, "dirac", "eye") for u in ("", "_"))


@rule(
    code="FNC011",
    name="init-every-parameter",
    title="fan-based init applied to every parameter, 1-D biases included",
    message="xavier_/kaiming_/orthogonal_ init need a tensor with at least 2 dimensions and raise 'Fan in "
    "and fan out can not be computed' on a bias",
    fix="model.apply(fn) with an isinstance check (init m.weight, zero m.bias), or skip p.dim() < 2",
    claim="04-C14",
    demo="notebooks/04_modules_hooks.ipynb",
)
class InitEveryParameter(Rule):
    """``for p in model.parameters(): nn.init.xavier_uniform_(p)`` (or ``named_parameters()``, or the
    same comprehension) when nothing in the loop filters the parameters (no ``if``, no ``continue``)."""

    @staticmethod
    def binds(target: ast.AST, name: str) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))

    def visit_Call(self, node: ast.Call) -> None:
        args = positional(node)
        if not args or not isinstance(args[0], ast.Name) or not self.src.calls(node, SHAPED_INITS):
            return
        name = args[0].id
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp, ast.Try, ast.While)):
                return
            if isinstance(a, ast.For) and self.binds(a.target, name):
                filtered = any(isinstance(n, (ast.If, ast.Continue, ast.IfExp)) for n in ast.walk(a))
                if method_call(a.iter, "parameters", "named_parameters") and not filtered:
                    self.report(node)
                return
            if isinstance(a, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                comp = a.generators[0]
                if self.binds(comp.target, name):
                    if method_call(comp.iter, "parameters", "named_parameters") and not comp.ifs:
                        self.report(node)
                    return


DEPRECATED_INITS = (*FAN_INITS, "uniform", "normal", "constant", "dirac", "eye")


@rule(
    code="FNC012",
    name="init-without-underscore",
    title="deprecated nn.init function without the trailing underscore",
    message="nn.init.xavier_uniform (no underscore) and its siblings are deprecated aliases and warn",
    fix="the in-place spelling: nn.init.xavier_uniform_(w)",
    claim="04-C14",
    autofix="safe",
    demo="notebooks/04_modules_hooks.ipynb",
)
class InitWithoutUnderscore(Rule):
    """``--fix`` renames the call to the underscore function, which the alias calls anyway."""

    def visit_Call(self, node: ast.Call) -> None:
        for name in self.src.callee(node):
            module, _, old = name.rpartition(".")
            if module == "torch.nn.init" and old in DEPRECATED_INITS:
                self.report(node, fixable=True, data=f"{old}_")
                return

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> Any:
        import libcst as cst

        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            return renamed_method(node, data)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            from libcst.codemod.visitors import ImportItem

            return node.with_changes(func=cst.Name(data)), [ImportItem("torch.nn.init", data)]
        return None


MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
#: The containers that register the modules (or parameters) they are given.
CONTAINERS = frozenset(
    f"torch.nn.{c}" for c in ("Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict")
)


@rule(
    code="FNC013",
    name="layers-in-plain-list",
    title="layers kept in a plain Python list or dict on a Module",
    message="layers in a plain list are not registered: no parameters for the optimizer, not in "
    "state_dict, not moved by .to()",
    fix="nn.ModuleList([...]) (nn.ModuleDict for a dict, nn.ParameterList for parameters)",
    claim="04-C11",
    demo="notebooks/16_error_gallery.ipynb",
)
class LayersInPlainList(Rule):
    """``self.x = [nn.Linear(...), ...]`` (a list, tuple or dict literal, or a list comprehension, of
    ``torch.nn`` module or ``nn.Parameter`` constructions) inside an ``nn.Module`` subclass, unless the same
    method wraps it afterwards (``self.net = nn.Sequential(*self.net)``, see :meth:`wrapped_later`)."""

    def is_layer(self, node: ast.AST) -> bool:
        for name in self.src.callee(node):
            parts = name.split(".")
            if name.startswith("torch.nn.") and parts[-1][:1].isupper() and "functional" not in parts:
                return True
        return False

    def visit_Assign(self, node: ast.Assign) -> None:
        if not any(is_self_attr(t) for t in node.targets):
            return
        value = node.value
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            items = value.elts
        elif isinstance(value, ast.Dict):
            items = value.values
        elif isinstance(value, (ast.ListComp, ast.SetComp)):
            items = [value.elt]
        elif isinstance(value, ast.DictComp):
            items = [value.value]
        else:
            return
        if not any(self.is_layer(i) for i in items):
            return
        cls = self.src.method_class(node)
        if cls is not None and any(self.src.qnames(b) & MODULE_BASES for b in cls.bases):
            if not self.wrapped_later(node):
                self.report(value)

    def wrapped_later(self, node: ast.Assign) -> bool:
        """The list is wrapped before the method ends: a later ``nn.Sequential(*self.net)``,
        ``nn.ModuleList(layers)`` (``self.net = layers = [...]``), ``nn.ModuleDict(...)`` of it, or
        ``add_module``/``register_module`` in a loop over it, so the layers end up registered."""
        fn = self.src.enclosing(node, FUNCTIONS)
        names = {dotted(t) for t in node.targets} - {None}
        if fn is None or not names:
            return False
        after = (node.end_lineno, node.end_col_offset)
        for n in own_nodes(fn):
            if not isinstance(n, (ast.Call, ast.For)) or (n.lineno, n.col_offset) < after:
                continue
            if isinstance(n, ast.For):
                if any(dotted(e) in names for e in ast.walk(n.iter)) and any(
                    method_call(c, "add_module", "register_module", "register_parameter") for c in ast.walk(n)
                ):
                    return True
            elif self.src.calls(n, CONTAINERS):
                args = [*n.args, *(k.value for k in n.keywords)]
                if any(dotted(e) in names for a in args for e in ast.walk(a)):
                    return True
        return False


@rule(
    code="FNC014",
    name="state-dict-snapshot",
    title="'best' state_dict kept without a copy",
    message="state_dict() returns references to the live tensors, so a 'best' snapshot keeps changing "
    "with training",
    fix="copy.deepcopy(model.state_dict()) (or {k: v.detach().clone() for k, v in ...})",
    claim="04-C10",
    demo="notebooks/04_modules_hooks.ipynb",
)
class StateDictSnapshot(Rule):
    """``best... = model.state_dict()`` (a target whose name says best or snapshot)."""

    NAME = re.compile(r"best|snapshot", re.I)

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and method_call(value, "state_dict") and not value.args:
            name = last_name(node.targets[0])
            if name and self.NAME.search(name):
                self.report(value)


# ============================================================================ 05 · dropout
DROPOUTS = frozenset(f"{FUNC}.{n}" for n in ("dropout", "dropout1d", "dropout2d", "dropout3d"))


@rule(
    code="FNC015",
    name="functional-dropout-in-forward",
    title="F.dropout in forward() without training=self.training",
    message="F.dropout ignores model.eval(): its training argument defaults to True, so it keeps dropping "
    "units at evaluation",
    fix="F.dropout(x, p, training=self.training), or an nn.Dropout module",
    claim="05-C8",
    demo="notebooks/05_dropout.ipynb",
)
class FunctionalDropoutInForward(Rule):
    """``F.dropout``/``dropout1d``/``2d``/``3d`` inside a ``forward`` method without ``training``
    (by name or third positional). ``F.alpha_dropout`` defaults to ``training=False`` and is left alone.
    So is a call that runs only in training: under ``if self.training:`` (also ``if self.training and
    p > 0:``, the ``else`` of ``if not self.training``, ``F.dropout(x) if self.training else x``) or after
    ``if not self.training: return ...``: there the default ``training=True`` is ``self.training``."""

    TRAINING = ast.dump(ast.parse("self.training", mode="eval").body)

    def training_holds(self, test: ast.expr, holds: bool) -> bool:
        """``test`` having the outcome ``holds`` implies ``self.training``."""
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, holds = test.operand, not holds
        if ast.dump(test) == self.TRAINING:
            return holds
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) and holds:
                return any(self.training_holds(v, True) for v in test.values)
            if isinstance(test.op, ast.Or) and not holds:
                return any(self.training_holds(v, False) for v in test.values)
        return False

    def only_in_training(self, node: ast.AST) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test:
                body = child in a.body if isinstance(a.body, list) else child is a.body
                if self.training_holds(a.test, body):
                    return True
            block = next((v for _, v in ast.iter_fields(a) if isinstance(v, list) and child in v), None)
            for before in block[: block.index(child)] if block else []:  # if not self.training: return x
                if (
                    isinstance(before, ast.If)
                    and before.body
                    and isinstance(before.body[-1], (ast.Return, ast.Raise))
                    and self.training_holds(before.test, False)
                ):
                    return True
            if isinstance(a, FUNCTIONS):
                break
            child = a
        return False

    def visit_Call(self, node: ast.Call) -> None:
        if not self.src.calls(node, DROPOUTS) or has_star_args(node) or get_arg(node, "training", 2):
            return
        fn = self.src.enclosing(node, FUNCTIONS)
        if fn is not None and fn.name == "forward" and not self.only_in_training(node):
            self.report(node)


# ============================================================================ 07 · affine_grid
@rule(
    code="FNC016",
    name="grid-align-corners",
    title="affine_grid / grid_sample without align_corners (or with align_corners=None)",
    message="without align_corners (or with align_corners=None), affine_grid and grid_sample warn on every "
    "call and use align_corners=False, which must match how theta was built",
    fix="pass align_corners=True or False explicitly (False is what the call does now)",
    claim="07-C1",
    autofix="safe",
    demo="notebooks/07_affine_grid_opencv.ipynb",
)
class GridAlignCorners(Rule):
    """No ``align_corners``, or a literal ``align_corners=None`` (by keyword or position), which warns the
    same. ``--fix`` adds ``align_corners=False`` (or puts ``False`` in place of the ``None``): the behaviour
    the call has today, without the warning."""

    POSITION = {f"{FUNC}.affine_grid": 2, f"{FUNC}.grid_sample": 4}

    def visit_Call(self, node: ast.Call) -> None:
        names = self.src.callee(node) & self.POSITION.keys()
        if names and not has_star_args(node):
            value = get_arg(node, "align_corners", self.POSITION[names.pop()])
            if value is None:
                self.report(node, fixable=True)
            elif is_const(value, None):
                self.report(node, fixable=True, data=node.args.index(value) if value in node.args else -1)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        """``data``: None, no align_corners (add it); the position of a ``None`` passed positionally; -1, a
        keyword ``align_corners=None``."""
        import libcst as cst

        if not isinstance(node, cst.Call):
            return None
        if data is None:
            return node.with_changes(args=[*node.args, keyword_arg("align_corners=False")])
        args = list(node.args)
        for i, arg in enumerate(args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if (keyword == "align_corners") if data == -1 else (i == data and keyword is None):
                if not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
                    return None
                args[i] = arg.with_changes(value=cst.Name("False"))
                return node.with_changes(args=args)
        return None
