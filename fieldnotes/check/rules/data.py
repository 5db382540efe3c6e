"""Rules of notebook 12 (data loading).

DataLoader worker options without workers, ``torch.from_numpy`` on negative strides, and a
``DistributedSampler`` whose epoch is never set.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from fieldnotes.check.base import (
    Rule,
    Source,
    dotted,
    get_arg,
    has_star_args,
    int_value,
    is_const,
    positional,
    rule,
)
from fieldnotes.check.rules.common import (
    argparse_defaults,
    assigned,
    attr_changed,
    call_sites,
    guarded_by,
    is_namespace,
    local_config_default,
    only_parameter,
    passed,
)

if TYPE_CHECKING:
    import libcst as cst


# ============================================================================ 12 · data loading
DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})


@rule(
    code="FNC026",
    name="worker-options-without-workers",
    title="persistent_workers / prefetch_factor with num_workers=0",
    message="persistent_workers=True and prefetch_factor need worker processes: with num_workers=0 (the "
    "default, or the default of the argument, parameter or config field it comes from) the DataLoader "
    "raises ValueError",
    fix="num_workers > 0 (also as the default), or drop the option, or pass it only with workers: "
    "persistent_workers=num_workers > 0",
    claim="12-C31",
    torchfix="TOR401 (off by default) asks for num_workers > 0 on any DataLoader; this rule flags only "
    "the options that raise without workers",
    demo="notebooks/12_data_loading.ipynb",
)
class WorkerOptionsWithoutWorkers(Rule):
    """``DataLoader(..., persistent_workers=True)`` or ``prefetch_factor=...`` whose ``num_workers`` is
    absent or 0, or comes, unchanged, from a 0 this file decides: an argparse option
    (``num_workers=args.num_workers`` with ``add_argument('--num_workers', default=0)``, ``args`` certainly
    the parsed namespace and nothing in the file setting ``.num_workers``), a parameter's default
    (``def make_loader(ds, num_workers=0)``, unless every call in the file passes it), a module constant, or
    a field of a config class of the same file (``cfg = Config()`` of a ``@dataclass`` with
    ``num_workers: int = 0``). A non-zero or unknown default, or a loader built under a test of that value
    (``if args.num_workers > 0:``), is left alone."""

    def visit_Call(self, node: ast.Call) -> None:
        if not self.src.calls(node, DATALOADERS) or has_star_args(node):
            return
        prefetch = get_arg(node, "prefetch_factor")
        if not (
            is_const(get_arg(node, "persistent_workers"), True)
            or (prefetch is not None and not is_const(prefetch, None))
        ):
            return
        workers = get_arg(node, "num_workers", 5)
        if workers is None or int_value(workers) == 0 or self.zero_by_default(workers, node):
            self.report(node)

    def zero_by_default(self, workers: ast.expr, call: ast.Call, depth: int = 0) -> bool:
        src = self.src
        if int_value(workers) is not None or guarded_by(src, call, {ast.dump(workers)}) or depth > 2:
            return False
        if isinstance(workers, ast.Name):
            param = only_parameter(src, workers)
            if param is not None:
                fn, position, default = param
                if int_value(default) != 0:
                    return False
                sites = call_sites(src, fn)
                return not sites or any(passed(c, workers.id, position, s) is None for c, s in sites)
            values = assigned(src, workers)  # a module constant, or an alias: workers = args.num_workers
            return bool(values) and all(
                int_value(v) == 0 or self.zero_by_default(v, call, depth + 1) for v in values or []
            )
        if not isinstance(workers, ast.Attribute) or attr_changed(src, workers.attr):
            return False
        if is_namespace(src, workers.value):
            defaults = argparse_defaults(src).get(workers.attr)
            return bool(defaults) and all(int_value(d) == 0 for d in defaults or [])
        return int_value(local_config_default(src, workers.value, workers.attr)) == 0


@rule(
    code="FNC027",
    name="from-numpy-negative-stride",
    title="torch.from_numpy on a reversed view (a[..., ::-1])",
    message="torch.from_numpy rejects arrays with negative strides, such as the BGR -> RGB view "
    "img[..., ::-1]",
    fix="copy the view first: torch.from_numpy(img[..., ::-1].copy())",
    claim="12-C20",
    autofix="safe",
    demo="notebooks/12_data_loading.ipynb",
)
class FromNumpyNegativeStride(Rule):
    """``--fix`` appends ``.copy()`` to the sliced array (the call could only raise before)."""

    def visit_Call(self, node: ast.Call) -> None:
        args = positional(node)
        if not args or not isinstance(args[0], ast.Subscript):
            return
        if not self.src.calls(node, {"torch.from_numpy", "torch.as_tensor"}):
            return
        index = args[0].slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(p, ast.Slice) and (int_value(p.step) or 0) < 0 for p in parts):
            self.report(node, fixable=True)

    @staticmethod
    def fix(node: cst.CSTNode, data: Any) -> cst.CSTNode | None:
        import libcst as cst

        if not isinstance(node, cst.Call) or not node.args:
            return None
        array = node.args[0].value
        copied = cst.Call(func=cst.Attribute(value=array, attr=cst.Name("copy")))
        return node.with_changes(args=[node.args[0].with_changes(value=copied), *node.args[1:]])


SAMPLERS = frozenset(
    {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
)


@rule(
    code="FNC028",
    name="distributed-sampler-set-epoch",
    title="DistributedSampler iterated over epochs without set_epoch",
    message="without sampler.set_epoch(epoch) every epoch repeats the same order, and under drop_last the "
    "same samples are never seen",
    fix="call sampler.set_epoch(epoch) at the start of every epoch",
    claim="12-C15",
)
class DistributedSamplerSetEpoch(Rule):
    """A shuffling ``DistributedSampler`` bound to a name (or passed to a ``DataLoader`` bound to a name)
    that a loop inside another loop iterates, in a file that never calls ``set_epoch``."""

    def __init__(self, src: Source) -> None:
        super().__init__(src)
        self.samplers: list[tuple[ast.Call, str]] = []
        self.loops: list[set[str]] = []
        self.loaders: dict[str, set[str]] = {}  # sampler name -> names of the DataLoaders built with it
        self.set_epoch = False

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "set_epoch":
            self.set_epoch = True

    def bound_name(self, node: ast.AST) -> str | None:
        owner = self.src.parent(node)
        if isinstance(owner, ast.keyword) and owner.arg == "sampler":
            loader = self.src.parent(owner)
            return self.bound_name(loader) if self.src.calls(loader, DATALOADERS) else None
        if isinstance(owner, ast.Assign) and len(owner.targets) == 1:
            return dotted(owner.targets[0])
        return None

    def visit_Call(self, node: ast.Call) -> None:
        if self.src.calls(node, SAMPLERS):
            shuffle = get_arg(node, "shuffle", 3)
            name = self.bound_name(node)
            if name and not is_const(shuffle, False):
                self.samplers.append((node, name))
        elif self.src.calls(node, DATALOADERS):
            sampler, loader = dotted(get_arg(node, "sampler", 3)), self.bound_name(node)
            if sampler and loader:
                self.loaders.setdefault(sampler, set()).add(loader)

    def visit_For(self, node: ast.For) -> None:
        if self.src.enclosing(node, (ast.For, ast.While)) is not None:
            self.loops.append({d for n in ast.walk(node.iter) if (d := dotted(n))})

    def finish(self) -> None:
        if not self.set_epoch:
            for node, name in self.samplers:
                iterated = {name} | self.loaders.get(name, set())
                if any(iterated & names for names in self.loops):
                    self.report(node)
