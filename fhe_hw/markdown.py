"""Markdown tables: the one writer behind every table fhe_hw prints or writes (results pages,
the report, board builds, explore's Pareto files, the ASIC flow)."""

__all__ = ["cell", "table"]


def cell(value):
    """A cell's text: ``None`` is an em dash (not measured), anything else its ``str``; a ``|``
    inside is escaped so that it cannot split the row."""
    return "—" if value is None else str(value).replace("|", "\\|")


def table(header, rows, fmt=cell):
    """A Markdown table ending in a newline: ``header`` (column titles) and ``rows`` (sequences
    of cells, each written through ``fmt``)."""
    header = list(header)
    lines = [_line(header), _line("---" for _ in header)]
    for row in rows:
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells, the header {len(header)}: {row!r}")
        lines.append(_line(fmt(c) for c in row))
    return "\n".join(lines) + "\n"


def _line(cells):
    return "| " + " | ".join(cells) + " |"
