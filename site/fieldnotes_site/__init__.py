"""The site's Sphinx extension: builds the generated parts of the site from the notebooks and the records.

``site/conf.py`` loads it, so ``sphinx-build site _build/html`` alone builds the whole site. One module per
concern, each small enough to read whole:

- :mod:`.base` — paths, labels and the small tables every part reads (glossary, coverage, rules).
- :mod:`.data` — what the site knows: each notebook (claims, errors, headings) and the records
  (:mod:`.records`: the version matrix; :mod:`.sources`: what a notebook's code says, read with ``ast``).
- :mod:`.notebook_page` — a notebook page as the reader sees it: the verification box and the claim and
  error targets inserted at ``source-read`` (never into the repository's file), the GPU outputs, the ✔
  badges of the folded checks, figure captions; :mod:`.sectionrefs`: "§2.3" in the prose links its section.
- :mod:`.pages` — one directive per generated page (landing, claims, changes, errors, glossary, coverage,
  rules, the notebook stamp), built from docutils nodes (:mod:`.docnodes`), so nothing needs escaping.
- :mod:`.search` — Chinese-mode search with the browser's Porter stemmer (:mod:`.porter`) and the error
  index the search page matches a pasted message against.
- :mod:`.assets` — weight: the icons the pages draw, the MathJax files they load, nothing else.
- :mod:`.build`, :mod:`.browser`, :mod:`.screenshots`, :mod:`.cjk_font` — the commands around the site:
  ``make site``, the browser tests' harness, the README's pictures, the Chinese font subset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from .assets import finish, page_context
from .base import GENERATED
from .notebook_page import join_ranges, lay_out_outputs, stamp_notebook, table_breaks
from .pages.changes import ChangesDirective
from .pages.claims import ClaimsDirective
from .pages.coverage import CoverageDirective
from .pages.errors import ErrorsDirective, RankedErrorsDirective
from .pages.glossary import GlossaryDirective
from .pages.landing import NotebooksDirective, SummaryDirective
from .pages.rules import RulesDirective
from .pages.stamp import StampDirective
from .search import SearchChinesePorter
from .sectionrefs import link_section_refs

__all__ = ["GENERATED", "setup"]


def generated_outdated(app: Sphinx, env: Any, added: set, changed: set, removed: set) -> list[str]:
    """The generated pages depend on every notebook and record: re-read them on every build."""
    app.fieldnotes = None  # type: ignore[attr-defined]  # and re-read the data
    return [d for d in GENERATED if d in env.found_docs]


def forget_inputs(app: Sphinx) -> None:
    """Any Sphinx run into a folder voids the stamp of the inputs its last ``make site`` built from (a plain
    ``sphinx-build`` of an edit, reverted later, is not taken for that build: build.py)."""
    from .build import stamp_path  # here: `python -m fieldnotes_site.build` must not find it imported

    stamp_path(Path(app.outdir)).unlink(missing_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("fieldnotes_repo_url", "", "html", types=[str])
    app.add_search_language(SearchChinesePorter)
    for name, directive in {
        "fieldnotes-summary": SummaryDirective,
        "fieldnotes-notebooks": NotebooksDirective,
        "fieldnotes-claims": ClaimsDirective,
        "fieldnotes-changes": ChangesDirective,
        "fieldnotes-errors": ErrorsDirective,
        "fieldnotes-ranked-errors": RankedErrorsDirective,
        "fieldnotes-glossary": GlossaryDirective,
        "fieldnotes-coverage": CoverageDirective,
        "fieldnotes-stamp": StampDirective,
        "fieldnotes-rules": RulesDirective,
    }.items():
        app.add_directive(name, directive)
    app.connect("builder-inited", forget_inputs)
    app.connect("source-read", stamp_notebook)
    app.connect("doctree-read", lay_out_outputs)
    app.connect("doctree-resolved", table_breaks)
    app.connect("doctree-resolved", link_section_refs)
    app.connect("doctree-resolved", join_ranges)  # after the § links: it joins "§3.1–3.3" with its link
    app.connect("env-get-outdated", generated_outdated)
    app.connect("html-page-context", page_context)
    app.connect("build-finished", finish)
    app.add_css_file("fieldnotes.css")
    app.add_js_file("fieldnotes-page.js", loading_method="defer")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
