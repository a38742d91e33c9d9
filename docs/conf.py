"""Sphinx configuration of the fhe_hw manual: ``nox -s docs`` builds it into build/docs/."""

import os

os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")

project = "fhe_hw"
author = "the fhe_hw developers"
copyright = "the fhe_hw developers, BSD-2-Clause"
release = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "none"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
napoleon_use_ivar = True

suppress_warnings = ["myst.header"]

# The pages' examples (``testcode`` blocks) run in ``sphinx-build -b doctest`` (``nox -s docs``),
# and their output must equal the ``testoutput`` block the page shows, character for character
# (no ``...`` wildcard).
doctest_default_flags = 0

try:
    import furo  # noqa: F401
    html_theme = "furo"
except ImportError:
    html_theme = "alabaster"
html_title = "fhe_hw"
