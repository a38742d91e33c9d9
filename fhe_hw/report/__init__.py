"""``fhe-hw report``: the papers' tables beside ours, software baselines, plots.

    fhe-hw report [--paper 000|001|002|003|004|all] [--full] [--no-synth] [--no-baselines]
                  [--jobs N] [--out build/report]

Writes ``report.md``, ``report.json`` and PNG plots under ``build/report/``. Paper rows are
data in :mod:`fhe_hw.tables.paper` (each with paper file and table); our rows come from the engines'
``cycles()`` (tied to simulation by their tests), from synthesis (:mod:`.synthcache`: cached
by :mod:`fhe_hw.builddir`'s key, run when missing; by default only the quick units that no
results page holds, which with this repository's pages is none: the others are read from the
pages' committed blocks by :mod:`.committed`, :func:`.core.plan`) and from
:mod:`fhe_hw.bench.baselines`; the configurations are the families' ``configs`` rows.
:mod:`.core` holds the machinery and the registry; :mod:`.sections` registers one function per
paper table into it (:func:`.core.section`) and is imported here, so neither module imports
the other both ways.
"""

import sys

from ..cliargs import add_verbose, int_in, output_dir
from . import sections  # noqa: F401  (registers the sections into .core's SECTIONS)
from .core import (
    DEFAULT_OUT,
    SECTIONS,
    Context,
    Part,
    Plot,
    SectionResult,
    Table,
    Unavailable,
    build_report,
    section,
)

__all__ = ["build_report", "section", "Part", "Table", "Plot", "SectionResult", "Unavailable",
           "Context", "SECTIONS", "add_report_parser", "cmd_report"]

PAPER_CHOICES = ("000", "001", "002", "003", "004", "all")


def cmd_report(args):
    results = build_report(args.paper, full=args.full, synth=not args.no_synth,
                           baselines=not args.no_baselines, jobs=args.jobs, out=args.out,
                           plots=not args.no_plots)
    for r in results:
        print(f"  {r.status:<11} {r.title}" + (f": {r.message.splitlines()[0]}"
                                                if r.message else ""))
    print(f"wrote {args.out}/report.md, report.json", file=sys.stderr)
    return 1 if args.strict and any(r.status == "error" for r in results) else 0


def add_report_parser(subparsers):
    """Add ``report`` to the ``fhe-hw`` sub-command parsers."""
    p = subparsers.add_parser(
        "report", help="the papers' tables beside ours, software baselines, plots",
        description="Reproduce the papers' tables with our units (cycles, ECP5 synthesis) "
                    "and measured software baselines; write Markdown, JSON and PNGs.")
    p.add_argument("--paper", choices=PAPER_CHOICES, default="all",
                   help="the paper whose tables to reproduce, or all")
    p.add_argument("--full", action="store_true",
                   help="synthesize every configuration (hours) instead of reading the engines "
                        "and their ModMuls from docs/results' committed blocks, and time the "
                        "large CMNT group")
    p.add_argument("--no-synth", action="store_true",
                   help="run no synthesis: the rows a run would synthesize come from the "
                        "synthesis cache, else from the committed blocks")
    p.add_argument("--no-baselines", action="store_true", help="skip the software timings")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--jobs", type=int_in(1, 64), default=2, help="parallel synthesis runs")
    p.add_argument("--out", type=output_dir, default=str(DEFAULT_OUT), help="output directory")
    p.add_argument("--strict", action="store_true",
                   help="exit with 1 when a section fails (not when one is unavailable)")
    add_verbose(p)
    p.set_defaults(func=cmd_report)
