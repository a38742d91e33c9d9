"""The one Markdown-table writer (fhe_hw.markdown) and that no module writes tables by hand."""

import os
import re
from pathlib import Path

import pytest

import fhe_hw
from fhe_hw.markdown import cell, table


def test_table_layout():
    assert table(["a", "b"], [[1, None], ["x", 2.5]]) == (
        "| a | b |\n| --- | --- |\n| 1 | — |\n| x | 2.5 |\n")


def test_header_only():
    assert table(["only"], []) == "| only |\n| --- |\n"


def test_pipe_in_a_cell_is_escaped():
    assert cell("a|b") == "a\\|b"
    assert table(["h"], [["a|b"]]).splitlines()[-1] == "| a\\|b |"


def test_custom_formatter():
    assert table(["v"], [[0.123456]], fmt=lambda v: f"{v:.2f}").splitlines()[-1] == "| 0.12 |"


@pytest.mark.parametrize("row", [[1], [1, 2, 3]])
def test_row_length_must_match_header(row):
    with pytest.raises(ValueError, match="cells"):
        table(["a", "b"], [row])


def test_no_hand_written_table_separators():
    """A separator row written by hand (``| --- |``) anywhere but fhe_hw/markdown.py means a
    second table writer."""
    root = Path(fhe_hw.__file__).resolve().parent
    pattern = re.compile(r"""["']\|? ?---? ?\|""")
    files = sorted(Path(d, f) for d, _, names in os.walk(root, followlinks=True)
                   for f in names if f.endswith(".py") and f != "markdown.py")
    assert any(path.name == "sky130.py" for path in files)      # the asic symlink is walked
    offenders = [f"{path.relative_to(root)}:{n}" for path in files
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 if pattern.search(line)]
    assert offenders == []
