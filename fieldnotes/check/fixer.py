"""``--fix``: a LibCST codemod that rewrites the fixable findings, formatting and comments kept.

Each finding's node is found in LibCST's tree by its span (``PositionProvider``; ast and LibCST agree on
where an expression starts and ends, parentheses excluded), the rule's ``fix`` builds the replacement from
LibCST's node, and the imports a fix needs are added with LibCST's ``AddImportsVisitor`` -- the way
TorchFix applies its fixes. ``libcst.codemod.transform_module`` runs it and turns a parse error into a
``TransformFailure``.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.codemod as codemod
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider

from fieldnotes.check.base import REGISTRY, Found

Span = tuple[int, int, int, int]


class _Apply(cst.CSTTransformer):
    """Replace every node whose span is wanted by its rule's fix (children first, so fixes nest)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: codemod.CodemodContext, wanted: dict[Span, Found]) -> None:
        super().__init__()
        self.context = context
        self.wanted = wanted
        self.fixed = 0

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        pos = self.get_metadata(PositionProvider, original_node, None)
        span = (pos.start.line, pos.start.column, pos.end.line, pos.end.column) if pos else None
        found = self.wanted.get(span) if span else None
        if found is None:
            return updated_node
        result = REGISTRY[found.code].visitor.fix(updated_node, found.data)
        if result is None:
            return updated_node
        if isinstance(result, tuple):
            result, imports = result
            for item in imports:
                AddImportsVisitor.add_needed_import(self.context, item.module, item.obj_name)
        del self.wanted[span]
        self.fixed += 1
        return result


class FixCodemod(codemod.Codemod):
    """Rewrite ``findings`` (fixable findings of the same code)."""

    def __init__(self, context: codemod.CodemodContext, findings: Sequence[Found]) -> None:
        super().__init__(context)
        self.wanted = {(f.line, f.column, *f.end): f for f in findings if f.fixable}
        self.fixed = 0

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if not self.wanted:
            raise codemod.SkipFile("nothing to fix")
        apply = _Apply(self.context, self.wanted)
        new = cst.MetadataWrapper(tree, unsafe_skip_copy=True).visit(apply)
        self.fixed = apply.fixed
        return new.visit(AddImportsVisitor(self.context))


def apply_fixes(code: str, findings: Sequence[Found]) -> tuple[str, int]:
    """``code`` with ``findings`` rewritten, and how many were. Raises ``SyntaxError`` if LibCST cannot
    parse what ``ast`` could."""
    fixer = FixCodemod(codemod.CodemodContext(), findings)
    result = codemod.transform_module(fixer, code)
    if isinstance(result, codemod.TransformFailure):
        error = result.error
        if isinstance(error, cst.ParserSyntaxError):
            raise SyntaxError(error.message, ("<fix>", error.raw_line, error.raw_column + 1, None))
        raise error
    if isinstance(result, codemod.TransformSuccess):
        return result.code, fixer.fixed
    return code, 0
