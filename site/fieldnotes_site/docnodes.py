"""Small builders of docutils nodes (text with inline code, cross-references, tables, paragraphs) and the
base class of the site's directives: pages are built as nodes, never as Markdown strings, so nothing needs
escaping."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx import addnodes

from .base import claim_label, rule_label
from .data import Notebook, SiteData, data

_CODE = re.compile(r"(`[^`]+`)")


def text_nodes(text: str) -> list[nodes.Node]:
    """Plain text, with `backticked` spans as inline code: the text reads exactly as written."""
    out: list[nodes.Node] = []
    for i, part in enumerate(_CODE.split(" ".join(text.split()))):
        if not part:
            continue
        out.append(nodes.literal(part[1:-1], part[1:-1]) if i % 2 else nodes.Text(part))
    return out


def xref(docname: str, target: str, content: Any, reftype: str = "ref") -> addnodes.pending_xref:
    """A link Sphinx resolves (and warns about when broken): to a label (``ref``) or a page (``doc``)."""
    node = addnodes.pending_xref(
        "",
        refdomain="std",
        reftype=reftype,
        reftarget=target,
        refexplicit=True,
        refwarn=True,
        refdoc=docname,
    )
    node += nodes.inline("", "", *_as_nodes(content))
    return node


def _as_nodes(content: Any) -> list[nodes.Node]:
    if content is None:
        return []
    if isinstance(content, str):
        return [nodes.Text(content)]
    if isinstance(content, nodes.Node):
        return [content]
    return [n for c in content for n in _as_nodes(c)]


def table(
    headers: list[str], rows: list[tuple[list, list[str]]], classes: list[str], widths: list[int]
) -> nodes.table:
    """A table whose cells are node lists; each row carries its ids (anchors)."""
    tab = nodes.table(classes=["fn-table", "colwidths-given", *classes])  # widths as given: fixed layout
    group = nodes.tgroup(cols=len(headers))
    tab += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    group += head
    head += _row(headers, [])
    body = nodes.tbody()
    group += body
    for cells, ids in rows:
        body += _row(cells, ids)
    return tab


def _row(cells: list, ids: list[str]) -> nodes.row:
    row = nodes.row(ids=ids)
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *_as_nodes(cell))
        row += entry
    return row


def para(*content: Any, classes: list[str] | None = None) -> nodes.paragraph:
    return nodes.paragraph("", "", *_as_nodes(list(content)), classes=classes or [])


def block(*content: Any) -> nodes.inline:
    """Content shown on a line of its own inside a table cell."""
    return nodes.inline("", "", *_as_nodes(list(content)), classes=["fn-block"])


def strong(text: str) -> nodes.strong:
    return nodes.strong(text, text)


def emph(text: str) -> nodes.emphasis:
    return nodes.emphasis(text, text)


class _Directive(Directive):
    has_content = False

    @property
    def env(self):  # noqa: ANN201 - sphinx BuildEnvironment
        return self.state.document.settings.env

    @property
    def site(self) -> SiteData:
        return data(self.env.app)

    @property
    def docname(self) -> str:
        return self.env.docname

    def nb_link(self, nb: Notebook, content: Any = None) -> addnodes.pending_xref:
        return xref(self.docname, "/" + nb.docname, content if content is not None else nb.title, "doc")

    def claim_link(self, num: str, cid: str) -> nodes.Node:
        if num in self.site.by_num:
            return xref(self.docname, claim_label(num, cid), nodes.literal(f"{num}-{cid}", f"{num}-{cid}"))
        return nodes.Text(f"{num}-{cid}")

    def rule_link(self, code: str) -> nodes.Node:
        """A link to a `fieldnotes check` rule on the rules page."""
        return xref(self.docname, rule_label(code), nodes.inline(code, code, classes=["fn-rule"]))

    def label(self, name: str, title: str) -> None:
        """Make ``name`` (an id on this page) a target other pages can link to."""
        self.env.domaindata["std"]["labels"][name] = (self.docname, name, title)
        self.env.domaindata["std"]["anonlabels"][name] = (self.docname, name)
