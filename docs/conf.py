"""Sphinx configuration of the gcul documentation.

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` from the
repository root (``python -m pip install -e ".[docs]"`` first). The pages are organised by
purpose (tutorial/, howto/, explanation/, reference/). The API reference, the command-line help,
the gallery and the proofs report are made from the code at build time (``_ext/gcul_docs.py``).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the checkout being documented, before any installed copy

import simulations  # noqa: E402

project = "gcul"
author = "the gcul authors"
copyright = "the gcul authors, BSD-3-Clause"
release = simulations.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "gcul_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# api/: where the API pages were generated before the reference moved to reference/generated;
# a checkout that built the old site still has them (untracked), and -W would fail on them
exclude_patterns = ["_build", "_ext", "api", "Thumbs.db", ".DS_Store"]

# autodoc / autosummary: the API pages are written by gcul_docs (one per public module and
# name); autosummary only draws the summary tables, it writes no stubs
autosummary_generate = False
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
add_module_names = False

# numpydoc: classes list their members through autodoc's :members:, not numpydoc's tables
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# MyST: the pages are Markdown that also reads well on the repository's web view; headings get
# anchors (the command line page links to its "#help-texts")
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"gcul {release}"
html_theme_options = {
    "description": "GCUL theory, proofs and simulations",
    "page_width": "1180px",
    "sidebar_width": "260px",
}
html_static_path = ["_static"]
html_css_files = ["gcul.css"]

# A module's References section is its bibliography: numpydoc renders it as citations, and
# docutils would warn about every entry the text does not cite inline ("Citation [R...-1] is
# not referenced"). Citations that ARE cited but missing still fail the build (docutils'
# "Unknown target name" is not in this category).
suppress_warnings = ["ref.citation"]
