"""Rules of notebook 13 (DDP).

A DataLoader given both a sampler and ``shuffle=True``, and a ``torch.distributed`` collective called
under a rank test.
"""

from __future__ import annotations

import ast
import re

from fieldnotes.check.base import Rule, get_arg, has_star_args, int_value, is_const, last_name, rule
from fieldnotes.check.rules.common import FUNCTIONS, own_nodes
from fieldnotes.check.rules.data import DATALOADERS


# ============================================================================ 13 · DDP
@rule(
    code="FNC029",
    name="sampler-with-shuffle",
    title="DataLoader with both a sampler and shuffle=True",
    message="shuffle=True is mutually exclusive with sampler= (and batch_sampler=): the DataLoader raises "
    "ValueError",
    fix="drop shuffle=True: the sampler decides the order (DistributedSampler shuffles itself)",
    claim="13-C18",
    demo="notebooks/13_distributed_data_parallel.ipynb",
)
class SamplerWithShuffle(Rule):
    """``DataLoader(..., shuffle=True)`` with a ``sampler=``/``batch_sampler=`` that is not None."""

    def visit_Call(self, node: ast.Call) -> None:
        if is_const(get_arg(node, "shuffle", 2), True) and self.src.calls(node, DATALOADERS):
            sampler = get_arg(node, "sampler", 3) or get_arg(node, "batch_sampler", 4)
            if sampler is not None and not is_const(sampler, None):
                self.report(node)


#: Collectives of torch.distributed, each with the position of its ``group`` parameter.
COLLECTIVE_GROUP = {
    "all_reduce": 2,
    "reduce": 3,
    "broadcast": 2,
    "all_gather": 2,
    "all_gather_into_tensor": 2,
    "all_gather_object": 2,
    "gather": 3,
    "gather_object": 3,
    "scatter": 3,
    "scatter_object_list": 3,
    "reduce_scatter": 3,
    "reduce_scatter_tensor": 3,
    "all_to_all": 2,
    "all_to_all_single": 4,
    "barrier": 0,
    "monitored_barrier": 0,
    "broadcast_object_list": 2,
}
COLLECTIVES = {
    f"torch.distributed{m}.{name}": name for m in ("", ".distributed_c10d") for name in COLLECTIVE_GROUP
}
RANK = re.compile(r"(?:[a-z]+_)?rank", re.I)
RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_global_rank", "get_node_local_rank"})
MAIN_PROCESS = frozenset(
    {
        "is_main_process",
        "main_process",
        "is_local_main_process",
        "is_master",
        "is_master_process",
        "master_process",
        "is_local_master",
        "is_global_zero",
        "is_rank_zero",
        "is_main_rank",
    }
)
EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def is_rank(node: ast.AST) -> bool:
    """``rank``, ``local_rank``, ``args.rank``, ``dist.get_rank()``, ``int(os.environ["RANK"])``."""
    if isinstance(node, ast.Call):
        if last_name(node.func) in RANK_CALLS:
            return True
        return last_name(node.func) == "int" and len(node.args) == 1 and is_rank(node.args[0])
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return isinstance(node.slice.value, str) and bool(RANK.fullmatch(node.slice.value))
    name = last_name(node)
    return bool(name and RANK.fullmatch(name))


FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def selects_ranks(test: ast.AST) -> bool:
    """``test`` holds on some ranks only: ``rank == 0``, ``local_rank not in [-1, 0]``, ``rank > 0``,
    ``is_main_process()``; not ``local_rank != -1`` or ``rank >= 0`` (every rank of a distributed run)."""
    for n in ast.walk(test):
        if isinstance(n, (ast.Name, ast.Attribute, ast.Call)):
            if last_name(n.func if isinstance(n, ast.Call) else n) in MAIN_PROCESS:
                return True
        if not isinstance(n, ast.Compare):
            continue
        operands = [n.left, *n.comparators]
        for i, op in enumerate(n.ops):
            left, right = operands[i], operands[i + 1]
            if is_rank(left):
                other = right
            elif is_rank(right):
                other, op = left, FLIPPED.get(type(op), type(op))()
            else:
                continue
            if some_ranks(op, other):
                return True
    return False


def some_ranks(op: ast.cmpop, other: ast.expr) -> bool:
    """``rank <op> other`` holds on some ranks (from 0 up) but not all, for a literal ``other`` (a name for
    another rank, ``rank != MAIN_PROCESS_RANK``, may be -1: not decided)."""
    if isinstance(other, (ast.Tuple, ast.List, ast.Set)):
        values = [int_value(e) for e in other.elts]
        return isinstance(op, (ast.In, ast.NotIn)) and any(v is not None and v >= 0 for v in values)
    c = int_value(other)
    if c is None:
        return False
    if isinstance(op, (ast.Eq, ast.NotEq, ast.Gt, ast.LtE)):
        return c >= 0
    if isinstance(op, (ast.GtE, ast.Lt)):
        return c >= 1
    return False


@rule(
    code="FNC038",
    name="collective-on-some-ranks",
    title="torch.distributed collective called under a rank test",
    message="every rank of the group must call a collective: under `if rank == 0:` (or after `if rank != 0: "
    "return`) the other ranks never do, and the ranks that do wait for them: a hang, or a RuntimeError "
    "once the process group's timeout has passed (30 minutes by default for gloo)",
    fix="call the collective on every rank (all_reduce, then use the result only under the rank test), or "
    "give it a group of just the ranks that call it",
    claim="13-C6",
)
class CollectiveOnSomeRanks(Rule):
    """A ``torch.distributed`` collective (``all_reduce``, ``reduce``, ``broadcast``, ``all_gather``,
    ``gather``, ``scatter``, ``barrier``, ... and their ``_object`` forms) without a ``group``, inside an
    ``if`` whose test holds on some ranks only (see :func:`selects_ranks`), or after an ``if`` on such a
    test that returns (``if rank != 0: return``), when the same function calls that collective nowhere
    else (the ``torch_distributed_zero_first`` pattern: ``barrier()`` under ``rank != 0`` and again under
    ``rank == 0``, or a ``broadcast`` in both branches, is left alone)."""

    def visit_Call(self, node: ast.Call) -> None:
        if last_name(node.func) not in COLLECTIVE_GROUP:
            return
        found = self.src.callee(node) & COLLECTIVES.keys()
        if not found or has_star_args(node):
            return
        name = COLLECTIVES[found.pop()]
        if get_arg(node, "group", COLLECTIVE_GROUP[name]) is not None:
            return
        region = self.rank_region(node)
        if region is None:
            return
        inside = {id(n) for top in region for n in ast.walk(top)}
        for other in own_nodes(self.src.function_or_module(node)):
            if isinstance(other, ast.Call) and id(other) not in inside:
                if any(COLLECTIVES.get(q) == name for q in self.src.callee(other)):
                    return
        self.report(node)

    def rank_region(self, node: ast.AST) -> list[ast.AST] | None:
        """The statements that run only on some ranks and hold ``node``: the branch of an ``if`` on a rank
        test, or what follows an ``if`` on one that leaves (``return``, ``continue``, ...); None if none."""
        child = node
        for a in self.src.ancestors(node):
            if isinstance(a, (ast.If, ast.IfExp)) and child is not a.test and selects_ranks(a.test):
                if isinstance(a.body, list):
                    return a.body if child in a.body else a.orelse
                return [child]
            if isinstance(a, ast.stmt):
                for block in (getattr(a, f, None) for f in ("body", "orelse", "finalbody")):
                    if isinstance(block, list) and child in block:
                        before = block[: block.index(child)]
                        for i, s in enumerate(before):
                            if (
                                isinstance(s, ast.If)
                                and not s.orelse
                                and s.body
                                and isinstance(s.body[-1], EXITS)
                                and selects_ranks(s.test)
                            ):
                                return block[i + 1 :]
            if isinstance(a, (*FUNCTIONS, ast.Lambda)):
                return None
            child = a
        return None
