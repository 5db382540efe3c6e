"""Sphinx configuration of the PyTorch Field Notes site: `sphinx-build site _build/html` builds it all.

The pages under site/ hold the prose; the tables and per-notebook boxes come from the project's extension
(site/fieldnotes_site/), which reads the notebooks (site/notebooks links to them), glossary.tsv,
coverage.tsv and the verification records.
"""

import logging
import sys
from pathlib import Path

import jieba

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "site")]  # helpers and tools; the extension (fieldnotes_site)
jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" chatter is not a build message

project = "PyTorch Field Notes"
author = "PyTorch Field Notes contributors"
copyright = "2026, PyTorch Field Notes contributors"

extensions = [
    "myst_nb",  # renders the stored notebooks (never executes them)
    "fieldnotes_site",  # generated pages, notebook boxes, error search, weight
]
nb_execution_mode = "off"  # the site shows exactly the outputs the tests verified
nb_merge_streams = True
# The toggle of a hidden cell input (the imports; check cells relabel theirs "show the check" in CSS).
nb_code_prompt_show = "show the code"
nb_code_prompt_hide = "hide the code"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    "jupyter_execute",
    "verification",
    "_static",
    "_templates",
]
html_theme = "sphinx_book_theme"
html_title = "PyTorch Field Notes"
html_favicon = "_static/favicon.svg"  # a browser asks for one: without it, a 404 on every first visit
html_static_path = ["_static"]
templates_path = ["_templates"]  # layout.html: no search scripts on pages other than search.html
# The repository (pyproject.toml's [project.urls] Repository): the Colab links open it and the notebooks'
# setup cell installs from it.
from tools.notebooks import repo_url  # noqa: E402

fieldnotes_repo_url = repo_url()
# index.md says where to clone the project from ({{ repo_url }})
# (its text without "https://": the theme draws a GitHub logo before a link whose text is its address, from
# a font the site does not ship)
myst_substitutions = {"repo_url": f"[{fieldnotes_repo_url.split('://')[-1]}]({fieldnotes_repo_url})"}
html_theme_options = {
    "repository_url": fieldnotes_repo_url,
    "use_repository_button": False,
    "use_download_button": True,  # its source link is the notebook as in the repository
    "home_page_in_toc": True,
    "show_toc_level": 2,
}
html_context = {"default_mode": "light"}  # an explicit mode; an empty one logs a console error
html_last_updated_fmt = None
html_copy_source = True  # the download button and the box's download link serve the repository's files
html_sourcelink_suffix = ""  # ... under their own names (notebooks/05_dropout.ipynb, not .ipynb.txt)
# MathJax from the site itself (the extension copies the files pages load from sphinx-mathjax-offline).
mathjax_path = "mathjax/tex-chtml.js"
html_search_language = "zh"  # jieba segmentation: Chinese and English terms are both searchable


def _glossary_userdict() -> str:
    """A jieba user dictionary with every glossary term, so a pasted term such as 随机种子 is indexed whole
    (jieba alone splits it into 随机 + 种子, and the search box keeps the pasted phrase as one term)."""
    import csv

    out = ROOT / "_build" / "jieba_userdict.txt"
    out.parent.mkdir(exist_ok=True)
    with open(ROOT / "site" / "glossary.tsv", newline="", encoding="utf-8") as f:
        terms = [row["zh"] for row in csv.DictReader(f, delimiter="\t")]
    out.write_text("".join(f"{t} 100000\n" for t in terms), encoding="utf-8")
    return str(out)


html_search_options = {"dict": _glossary_userdict()}
smartquotes = False  # code and error messages in claim statements must read exactly as printed
