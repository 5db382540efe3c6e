"""Sphinx configuration for the PyTorch Field Notes site (built by tools/build_site.py)."""

import logging
import os

import jieba

jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" chatter is not a build message

project = "PyTorch Field Notes"
author = "PyTorch Field Notes contributors"
copyright = "2026, PyTorch Field Notes contributors"

extensions = [
    "myst_nb",  # renders the stored notebooks (never executes them)
    "sphinx-mathjax-offline",  # a local MathJax copy: math renders with no network
]
nb_execution_mode = "off"  # the site shows exactly the outputs the tests verified
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]
myst_html_meta = {}

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
html_theme = "sphinx_book_theme"
html_title = "PyTorch Field Notes"
html_static_path = ["_static"]
html_css_files = ["fieldnotes.css"]  # the version grid of the claim ledger
html_theme_options = {
    "repository_url": os.environ.get(
        "FIELDNOTES_REPO_URL", "https://github.com/pytorch-field-notes/field-notes"
    ),
    "use_repository_button": False,
    "use_download_button": True,
    "home_page_in_toc": True,
    "show_toc_level": 2,
}
html_context = {"default_mode": "light"}  # an explicit mode; an empty one logs a console error
html_last_updated_fmt = None
html_search_language = "zh"  # jieba segmentation: Chinese and English terms are both searchable


def _glossary_userdict() -> str:
    """A jieba user dictionary with every glossary term, so a pasted term such as 随机种子 is indexed whole
    (jieba alone splits it into 随机 + 种子, and the search box keeps the pasted phrase as one term)."""
    import csv
    from pathlib import Path

    here = Path(__file__).resolve().parent
    out = here.parent / "_build" / "jieba_userdict.txt"
    out.parent.mkdir(exist_ok=True)
    with open(here / "glossary.tsv", newline="", encoding="utf-8") as f:
        terms = [row["zh"] for row in csv.DictReader(f, delimiter="\t")]
    out.write_text("".join(f"{t} 100000\n" for t in terms), encoding="utf-8")
    return str(out)


html_search_options = {"dict": _glossary_userdict()}
html_copy_source = False
smartquotes = False  # code and error messages in claim statements must read exactly as printed
