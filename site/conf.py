"""Sphinx configuration for the PyTorch Field Notes site (built by tools/build_site.py)."""

import os

project = "PyTorch Field Notes"
author = "PyTorch Field Notes contributors"
copyright = "2026, PyTorch Field Notes contributors"

extensions = [
    "myst_nb",                 # renders the stored notebooks (never executes them)
    "sphinx-mathjax-offline",  # a local MathJax copy: math renders with no network
]
nb_execution_mode = "off"      # the site shows exactly the outputs the tests verified
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
html_theme = "sphinx_book_theme"
html_title = "PyTorch Field Notes"
html_static_path = []
html_theme_options = {
    "repository_url": os.environ.get("FIELDNOTES_REPO_URL", "https://github.com/pytorch-field-notes/field-notes"),
    "use_repository_button": False,
    "use_download_button": True,
    "home_page_in_toc": True,
    "show_toc_level": 2,
}
html_last_updated_fmt = None
html_search_language = "zh"    # jieba segmentation: Chinese and English terms are both searchable
html_copy_source = False
