"""Shared by the table scripts in tools/: replace the generated block of a Markdown file.

A block sits between ``<!-- TAG:begin -->`` and ``<!-- TAG:end -->``; a file without both
markers is left alone (a script run outside a checkout still prints its table)."""

import re
from pathlib import Path


def replace_block(text, tag, block):
    """``text`` with the part between the ``tag`` markers replaced by ``block``, or None if the
    markers are missing."""
    begin, end = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda _: f"{begin}\n{block}{end}", text, count=1)


def update(path, tag, block):
    """Write ``block`` between the ``tag`` markers of ``path`` (when it has them)."""
    path = Path(path)
    if path.exists():
        updated = replace_block(path.read_text(), tag, block)
        if updated is not None:
            path.write_text(updated)
            print(f"updated {path}")
