"""Section references in a notebook page's prose (and its ✔ lines) become links: "§2.3" to that section of
the same page, "notebook 12 §1.5" to the section of the other notebook. The prose keeps its text (the
notebooks stay readable in JupyterLab); only the built page links it. A reference to a section the page
does not have stays text, and so does one whose notebook is ambiguous ("notebook 12's §1.3", "§1.3 of
notebook 12": write "notebook 12 §1.3"); the build warns of both (``make site`` is strict: it fails)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import nbformat
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from .data import data
from .notebook_page import numbered_headings, section_label

logger = logging.getLogger(__name__)

#: "§2.3", "§7", or "notebook 12 §1.5" (the number of another notebook before the section)
#: or "Notebook 11 (§4.1)", where only "§4.1" becomes the link
REF = re.compile(r"(?:[Nn]otebook (?P<nb>\d\d) (?P<paren>\()?)?§(?P<sec>\d+(?:\.\d+)?)")
#: between two references of one list ("notebook 02 §3.3, §3.5", "§1.3–§1.4"): both in the same notebook
_SAME_LIST = re.compile(r"\s*(?:,|–|-|and|or)\s*")
#: a bare "§" that another notebook's number stands next to, in a phrasing REF does not read
_AMBIGUOUS_BEFORE = re.compile(r"[Nn]otebook \d\d\W{0,3}(?:['’]s )?$")
_AMBIGUOUS_AFTER = re.compile(r"^\S* (?:of|in) [Nn]otebook \d\d")
#: text inside these is code, a link already, or markup the page draws itself: never linked
_SKIP = (nodes.reference, nodes.literal, nodes.FixedTextElement, nodes.raw, nodes.title, nodes.target)


@cache
def sections_of(path: Path) -> frozenset[str]:
    """The numbers of a notebook's numbered sections ("2", "2.3", ...)."""
    cells = nbformat.read(path, as_version=4).cells
    return frozenset(number for _, _, number in numbered_headings(cells))


def _linkable(text: nodes.Text) -> bool:
    parent = text.parent
    while parent is not None:
        if isinstance(parent, _SKIP):
            return False
        parent = parent.parent
    return True


def link_section_refs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn every "§N.M" of a notebook page's prose into a link to that section (``doctree-resolved``)."""
    site = data(app)
    here = site.by_doc.get(docname)
    if here is None:
        return
    for text in list(doctree.findall(nodes.Text)):
        if "§" not in text or not _linkable(text):
            continue
        new: list[nodes.Node] = []
        last, listed = 0, None  # listed: the notebook of the reference just before, if this one continues it
        for m in REF.finditer(str(text)):
            num = m["nb"] or (
                listed if listed and _SAME_LIST.fullmatch(str(text)[last : m.start()]) else here.num
            )
            listed = num
            target = site.by_num.get(num)
            if not m["nb"] and (
                _AMBIGUOUS_BEFORE.search(str(text)[max(0, m.start() - 20) : m.start()])
                or _AMBIGUOUS_AFTER.match(str(text)[m.end() :])
            ):
                logger.warning(
                    f"{m.group()!r}: of which notebook? Write 'notebook NN {m.group()}'",
                    location=(docname, text.parent.line if text.parent is not None else None),
                )
                continue
            if target is None or m["sec"] not in sections_of(target.path):
                logger.warning(
                    f"{m.group()!r} names no section of notebook {num}",
                    location=(docname, text.parent.line if text.parent is not None else None),
                )
                continue
            uri = "" if target is here else app.builder.get_relative_uri(docname, target.docname)
            anchor = section_label(target.num, m["sec"])
            start = m.start("paren") + 1 if m["paren"] else m.start()  # "Notebook 11 (" stays text
            new.append(nodes.Text(str(text)[last:start]))
            new.append(
                nodes.reference(
                    "",
                    str(text)[start : m.end()],
                    refuri=f"{uri}#{anchor}",
                    internal=True,
                    classes=["fn-secref"],
                )
            )
            last = m.end()
        if new:
            new.append(nodes.Text(str(text)[last:]))
            text.parent.replace(text, [n for n in new if not isinstance(n, nodes.Text) or str(n)])
