"""Rules of notebooks 09 (training loop) and 10 (mixed precision).

``scheduler.step()`` before ``optimizer.step()``, a running total of the loss tensor, the deprecated
``torch.cuda.amp``, and gradients clipped under a ``GradScaler`` without ``unscale_``.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import Rule, Source, dotted, last_name, method_call, positional, rule
from fieldnotes.check.rules.common import FUNC, FUNCTIONS

if TYPE_CHECKING:
    import libcst as cst


# ============================================================================ 09 · training loop
OPTIMIZER_NAME = re.compile(r"(?:.*_)?(?:opt|optim|optimi[sz]er)(?:_.*|\d*)", re.I)
SCHEDULER_NAME = re.compile(r".*sched.*", re.I)


@rule(
    code="FNC022",
    name="scheduler-before-optimizer",
    title="scheduler.step() before optimizer.step()",
    message="calling scheduler.step() before optimizer.step() skips the first value of the schedule "
    "(every step uses the next one) and warns",
    fix="call optimizer.step() first, then scheduler.step()",
    claim="09-C8",
    demo="notebooks/09_training_loop.ipynb",
)
class SchedulerBeforeOptimizer(Rule):
    """In one block, ``sched.step()`` followed by a statement that runs ``opt.step()`` (or
    ``scaler.step(opt)``), also inside a nested loop. A receiver is a scheduler/optimizer when it was built
    by ``torch.optim.lr_scheduler.*`` / ``torch.optim.*``; when its origin is unknown (a parameter), when
    its name says so (``scheduler``, ``lr_sched``; ``opt``, ``optimizer``, ``opt_g``)."""

    def kind(self, node: ast.AST) -> str | None:
        values = self.src.values(node)
        if values:
            names = set().union(*(self.src.callee(v) for v in values))
            if any(n.startswith("torch.optim.lr_scheduler.") for n in names):
                return "scheduler"
            if any(n.startswith("torch.optim.") and n.rsplit(".", 1)[1][:1].isupper() for n in names):
                return "optimizer"
            if names:
                return None
        name = last_name(node)
        if name and SCHEDULER_NAME.fullmatch(name):
            return "scheduler"
        if name and OPTIMIZER_NAME.fullmatch(name):
            return "optimizer"
        return None

    def steps_optimizer(self, stmt: ast.AST) -> bool:
        for n in ast.walk(stmt):
            if method_call(n, "step"):
                if self.kind(n.func.value) == "optimizer":
                    return True
                args = positional(n)
                if len(args) == 1 and self.kind(args[0]) == "optimizer":
                    return True
        return False

    def check(self, body: list[ast.stmt]) -> None:
        for i, stmt in enumerate(body):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if method_call(call, "step") and not call.args and not call.keywords:
                if self.kind(call.func.value) == "scheduler":
                    if any(self.steps_optimizer(later) for later in body[i + 1 :]):
                        self.report(call)

    def generic_block(self, node: ast.AST) -> None:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                self.check(block)

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_For = visit_AsyncFor = generic_block
    visit_While = visit_If = visit_With = visit_AsyncWith = visit_Try = visit_ExceptHandler = generic_block


LOSS_FUNCTIONS = frozenset(
    f"{FUNC}.{n}"
    for n in (
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "cross_entropy",
        "nll_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "kl_div",
        "cosine_embedding_loss",
        "margin_ranking_loss",
        "triplet_margin_loss",
        "ctc_loss",
    )
)
LOSS_CLASS = re.compile(r"torch\.nn\.(?:modules\.loss\.)?\w+Loss")


@rule(
    code="FNC023",
    name="accumulate-loss-tensor",
    title="running total of the loss tensor (total += loss)",
    message="adding the loss tensor keeps every step's autograd graph alive (the total requires grad); "
    "memory grows with every step",
    fix="total += loss.item() (or loss.detach())",
    claim="09-C6",
)
class AccumulateLossTensor(Rule):
    """``total += loss`` or ``total = total + loss`` where ``loss`` is bound only to loss calls
    (``F.mse_loss(...)``, ``criterion(...)`` with ``criterion = nn.XLoss()``), or only to calls and is
    backpropagated (``loss.backward()``) in the same function; not under ``torch.no_grad()`` /
    ``inference_mode()``, and not when the total itself is backpropagated (gradient accumulation)."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.candidates: list[tuple[ast.AST, ast.Name, str]] = []
        self.backwarded: set[tuple[ast.AST, str]] = set()

    def visit_Call(self, node: ast.Call) -> None:
        if method_call(node, "backward"):
            name = dotted(node.func.value)
            if name:
                self.backwarded.add((self.src.function_or_module(node), name))

    def is_loss_call(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        if self.src.calls(node, LOSS_FUNCTIONS):
            return True
        values = self.src.values(node.func)
        return bool(values) and all(any(LOSS_CLASS.fullmatch(n) for n in self.src.callee(v)) for v in values)

    def added(self, node: ast.AST) -> ast.Name | None:
        """The name added: ``loss``, also in ``loss * n``, ``loss / k``."""
        if isinstance(node, ast.Name):
            return node
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            return self.added(node.left)
        return None

    def candidate(self, stmt: ast.AST, target: ast.AST, value: ast.AST) -> None:
        loss = self.added(value)
        total = dotted(target.value if isinstance(target, ast.Subscript) else target)
        if loss is None or total is None:
            return
        for a in self.src.ancestors(stmt):
            if isinstance(a, ast.With) and any(
                self.src.calls(i.context_expr, {"torch.no_grad", "torch.inference_mode"}) for i in a.items
            ):
                return
        self.candidates.append((stmt, loss, total))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, ast.Add):
            self.candidate(node, node.target, node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            if dotted(value.left) is not None and dotted(value.left) == dotted(node.targets[0]):
                self.candidate(node, node.targets[0], value.right)

    def finish(self) -> None:
        for stmt, loss, total in self.candidates:
            scope = self.src.function_or_module(stmt)
            if (scope, total) in self.backwarded:
                continue
            values = self.src.values(loss)
            if not values or not all(isinstance(v, ast.Call) for v in values):
                continue
            if any(method_call(v, "item", "detach", "tolist", "cpu", "numpy") for v in values):
                continue
            if (scope, loss.id) in self.backwarded or all(self.is_loss_call(v) for v in values):
                self.report(stmt)


# ============================================================================ 10 · mixed precision
AMP = {
    "torch.cuda.amp.autocast": ("cuda", "autocast"),
    "torch.cuda.amp.GradScaler": ("cuda", "GradScaler"),
    "torch.cpu.amp.autocast": ("cpu", "autocast"),
    "torch.cpu.amp.GradScaler": ("cpu", "GradScaler"),
    "torch.cuda.amp.custom_fwd": ("cuda", "custom_fwd"),
    "torch.cuda.amp.custom_bwd": ("cuda", "custom_bwd"),
}


@rule(
    code="FNC024",
    name="cuda-amp",
    title="torch.cuda.amp.* is deprecated",
    message="torch.cuda.amp.autocast/GradScaler (and torch.cpu.amp.*) are deprecated aliases of the "
    "torch.amp classes and emit a FutureWarning",
    fix='torch.amp.autocast("cuda", ...), torch.amp.GradScaler("cuda", ...), '
    'torch.amp.custom_fwd(device_type="cuda")',
    claim="10-C9",
    autofix="safe",
    demo="notebooks/10_mixed_precision.ipynb",
)
class CudaAmp(Rule):
    """Calls and decorators of the deprecated names. ``--fix`` rewrites ``torch.cuda.amp.GradScaler(a)`` to
    ``torch.amp.GradScaler("cuda", a)`` and ``torch.cuda.amp.autocast(k=v)`` to
    ``torch.amp.autocast("cuda", k=v)`` (autocast only with keyword arguments: its positional order
    differs); names imported with ``from torch.cuda.amp import ...`` are reported, not rewritten.

    A fallback for old torch is left alone: a call in one branch of an ``if``/conditional expression whose
    other branch uses ``torch.amp`` (``torch.amp.GradScaler(...) if TORCH_2_4 else
    torch.cuda.amp.GradScaler()``), or in an ``except`` handler of a ``try`` that does: it runs only where
    the new spelling is missing, and there the old one does not warn."""

    def uses_torch_amp(self, nodes: list[ast.AST]) -> bool:
        return any(
            any(q.startswith("torch.amp.") or q == "torch.autocast" for q in self.src.qnames(n))
            for top in nodes
            for n in ast.walk(top)
            if isinstance(n, ast.Attribute | ast.Name)
        )

    def fallback(self, node: ast.AST) -> bool:
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, ast.IfExp) and child in (a.body, a.orelse):
                other = a.orelse if child is a.body else a.body
                if self.uses_torch_amp([other]):
                    return True
            elif isinstance(a, ast.If) and child is not a.test:
                other = a.orelse if child in a.body else a.body
                if self.uses_torch_amp(other):
                    return True
            elif isinstance(a, ast.ExceptHandler):
                attempt = self.src.parent(a)
                if isinstance(attempt, ast.Try) and self.uses_torch_amp(attempt.body):
                    return True
            elif isinstance(a, FUNCTIONS):
                return False
            child = a
        return False

    def visit_Call(self, node: ast.Call) -> None:
        found = self.src.callee(node) & AMP.keys()
        if not found or self.fallback(node):
            return
        device, what = AMP[found.pop()]
        func = node.func
        fixable = (
            what in ("autocast", "GradScaler")
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Attribute)  # <torch>.cuda.amp
            and isinstance(func.value.value, ast.Attribute)  # <torch>.cuda
            and self.src.qnames(func.value.value.value) == {"torch"}
            and (what == "GradScaler" or (not node.args and all(k.arg for k in node.keywords)))
        )
        self.report(node, fixable=fixable, data=device)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:
            if not isinstance(d, ast.Call) and self.src.qnames(d) & AMP.keys():
                self.report(d)

    visit_AsyncFunctionDef = visit_FunctionDef

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        func = node.func if isinstance(node, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute)):
            return None
        amp = func.value.with_changes(value=func.value.value.value)  # <torch>.cuda.amp -> <torch>.amp
        device = cst.Arg(value=cst.SimpleString(f'"{data}"'))
        return node.with_changes(func=func.with_changes(value=amp), args=[device, *node.args])


CLIPS = frozenset(
    f"torch.nn.utils.{m}{f}"
    for m in ("", "clip_grad.")
    for f in ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_")
)


@rule(
    code="FNC025",
    name="clip-without-unscale",
    title="gradients clipped under a GradScaler without unscale_",
    message="after scaler.scale(loss).backward() the gradients are multiplied by the scale (65536 at "
    "first), so clipping sees a norm 65536x too large",
    fix="scaler.unscale_(optimizer) before clip_grad_norm_ (scaler.step(optimizer) then does not unscale "
    "again)",
    claim="10-C11",
)
class ClipWithoutUnscale(Rule):
    """In one function (or at module level): a clip call after ``<scaler>.scale(...).backward()`` with no
    ``<scaler>.unscale_(...)`` between them. Calls in the other branch of an ``if`` (``if use_amp:
    scaler.scale(loss).backward() ... else: loss.backward(); clip_grad_norm_(...)``) do not count: they
    never run before the clip."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.events: list[tuple[int, tuple[int, int], str, ast.Call]] = []

    def visit_Call(self, node: ast.Call) -> None:
        kind = None
        if method_call(node, "backward") and method_call(node.func.value, "scale"):
            kind = "scaled-backward"
        elif method_call(node, "unscale_"):
            kind = "unscale"
        elif self.src.calls(node, CLIPS):
            kind = "clip"
        if kind:
            scope = id(self.src.function_or_module(node))
            self.events.append((scope, (node.lineno, node.col_offset), kind, node))

    def branches(self, node: ast.AST) -> dict[ast.AST, str]:
        """For each ``if`` (or conditional expression) around ``node``: the part that holds it."""
        out: dict[ast.AST, str] = {}
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)):
                body = child in a.body if isinstance(a.body, list) else child is a.body
                out[a] = "test" if child is a.test else "body" if body else "orelse"
            child = a
        return out

    def exclusive(self, a: ast.AST, b: ast.AST) -> bool:
        """``a`` and ``b`` are in different branches of one ``if``: never both run."""
        ba, bb = self.branches(a), self.branches(b)
        return any({ba[k], bb[k]} == {"body", "orelse"} for k in ba.keys() & bb.keys())

    def finish(self) -> None:
        events = sorted(self.events, key=lambda e: (e[0], e[1]))
        for i, (scope, _, kind, node) in enumerate(events):
            if kind != "clip":
                continue
            before = [
                k for s, _, k, n in events[:i] if s == scope and k != "clip" and not self.exclusive(n, node)
            ]
            if before and before[-1] == "scaled-backward":
                self.report(node)
