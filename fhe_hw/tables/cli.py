"""``fhe-hw table NAME [--jobs N] [--reuse] [--check]``: regenerate one documented results
table, or check that its rows still describe the generator's Verilog.

The table's rows come from its family's ``configs`` module, synthesis runs through
:mod:`fhe_hw.flow.synth` (cached by :mod:`fhe_hw.builddir`'s key), and the block between the
``<!-- table:NAME:begin/end -->`` markers of its page under ``docs/results/`` is rewritten,
ending with a provenance line. The Markdown and JSON also go to ``build/tables/``.

A table that routes rows records in its block the design each row was routed from (its
Verilog's :func:`~fhe_hw.flow.synth.design_digest`, and the Amaranth that converted it,
:func:`~.pages.designs_line`). ``--check`` builds each row's Verilog again, synthesizes
nothing, and exits with 1 when a row's design differs from the recorded one (the row is stale:
the generator changed since it was routed) or the block records none. A partial run (some of
a table's rows) writes no page and records nothing.
"""

import json
import os
import time
from pathlib import Path

from .. import builddir
from ..cliargs import RawDescriptionHelpFormatter, add_verbose, int_in
from ..flow.run import Progress
from ..flow.synth import design_generator, row_design
from ..karatsuba.schedule import MAX_RECURSIONS
from . import MODULES, get_table, tables
from .pages import (
    RESULTS,
    TableFailure,
    designs_line,
    git_commit,
    provenance,
    read_block,
    read_designs,
    write_block,
)

__all__ = ["add_table_parser", "cmd_table", "command_line"]

#: Options every table takes: (flag, dest, argparse keywords).
_COMMON = (
    ("--jobs", "jobs", {"type": int_in(1, 64), "default": 1,
                        "help": "parallel synthesis runs (1 to 64)"}),
    ("--reuse", "reuse", {"action": "store_true",
                          "help": "take a row's result from the synthesis cache when the same "
                                  "unit, parameters, generated Verilog, flow, device, frequency "
                                  "and tools made it"}),
    ("--no-write", "no_write", {"action": "store_true",
                                "help": "print the block, do not rewrite the results page"}),
    ("--check", "check", {"action": "store_true",
                          "help": "synthesize nothing: exit 1 when a row's generated Verilog "
                                  "differs from the design the table records for it"}),
)
#: Options of single tables (flag, dest, argparse keywords, tables that use it).
_SPECIFIC = (
    ("--iterations-only", "iterations_only",
     {"action": "store_true", "help": "rns: iteration counts only, no synthesis"}, ("rns",)),
    ("--recursions", "recursions",
     {"type": int_in(1, MAX_RECURSIONS), "nargs": "+",
      "help": f"karatsuba: recursions r to build (1 to {MAX_RECURSIONS}; default 1 2 3)"},
     ("karatsuba",)),
    ("--no-pnr", "no_pnr", {"action": "store_true", "help": "karatsuba: Yosys only"},
     ("karatsuba",)),
    ("--time-limit", "time_limit",
     {"type": int_in(1, 600),
      "help": "board-fits: minutes one build may take before the sweep counts it as not "
              "fitting (1 to 600, default 20)"}, ("board-fits",)),
)


def _root():
    """The checkout this package runs from (the directory holding ``docs/results``)."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (base / RESULTS).is_dir():
            return base
    raise ValueError(f"no {RESULTS} here or beside the fhe_hw package: run from a checkout")


def command_line(args):
    """The ``fhe-hw table`` command line that reproduces ``args`` (for the provenance)."""
    words = ["fhe-hw", "table", args.name]
    for flag, dest, kw, *_ in _COMMON + _SPECIFIC:
        value = getattr(args, dest)
        if value in (None, False) or value == kw.get("default"):
            continue
        if value is True:
            words.append(flag)
        else:
            values = value if isinstance(value, list) else [value]
            words += [flag, *map(str, values)]
    return " ".join(words)


def cmd_table(args):
    spec = get_table(args.name)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {args.jobs}")
    for flag, dest, _, names in _SPECIFIC:
        if getattr(args, dest) not in (None, False) and args.name not in names:
            raise ValueError(f"{flag} applies to the {', '.join(names)} table, "
                             f"not {args.name}")
    root = _root()
    os.chdir(root)  # build/ and docs/results/ of this checkout
    if args.check:
        return check_designs(spec, root)
    out = builddir.table_dir()
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    # The commit the rows are built from: read before the run, so that a commit made while a
    # long regeneration runs is not credited with its results.
    commit = git_commit(root)

    progress = Progress(args.name, start)
    logs = "" if spec.logs == "none" else f"; tool logs under {builddir.ROOT / spec.logs}/"
    progress(f"start ({args.jobs} job(s)){logs}")
    try:
        block, facts = spec.generate(args, progress)
    except TableFailure as e:
        progress(f"FAILED, {RESULTS / spec.page} left as it is: {e}")
        return 1
    except RuntimeError as e:    # a tool or the PDK missing, or a tool failed
        progress(f"FAILED, {RESULTS / spec.page} left as it is: {e}")
        return 1
    seconds = time.monotonic() - start
    designs = facts.get("designs")
    if spec.rows and designs and None not in designs and not facts.get("partial"):
        if len(designs) != len(spec.rows):
            raise RuntimeError(f"{args.name}: {len(designs)} designs routed for "
                               f"{len(spec.rows)} rows")
        block = (block.rstrip("\n") + "\n\n"
                 + designs_line(args.name, designs, design_generator()) + "\n")
    line = provenance(command_line(args), commit=commit, tools=facts.get("tools"),
                      device=facts.get("device"), freq_mhz=facts.get("freq_mhz"),
                      seconds=seconds if facts.get("timed", True) else None)
    block = block.rstrip("\n") + "\n\n" + line + "\n"
    (out / f"{args.name}.md").write_text(block)
    if "json" in facts:
        (out / f"{args.name}.json").write_text(json.dumps(facts["json"], indent=2,
                                                          default=str))
    print(block, end="")
    progress(f"wrote {out / (args.name + '.md')}")
    if facts.get("partial"):
        progress(f"a partial table (options above): {RESULTS / spec.page} left as it is")
    elif not args.no_write:
        progress(f"updated {write_block(root, spec, block)}")
    progress(f"done in {seconds:.0f} s")
    return 0


def check_designs(spec, root):
    """``fhe-hw table NAME --check``: each of ``spec``'s rows built again and its design
    compared with the one its block records, a line per row as it is built. Returns 0 when
    every row is current, else 1."""
    if not spec.rows:
        routed = ", ".join(name for name, t in tables().items() if t.rows)
        raise ValueError(f"--check applies to the tables that route rows ({routed}), "
                         f"not {spec.name}")
    progress = Progress(spec.name)
    page = Path(root, RESULTS, spec.page)
    recorded = read_designs(read_block(page.read_text(), spec.name) or "")
    if recorded is None:
        progress(f"{page} records no designs for its rows: regenerate it with "
                 f"`fhe-hw table {spec.name}` to record them")
        return 1
    (generator, recorded), here = recorded, design_generator()
    if generator != here:
        progress(f"the rows were converted to Verilog by {generator}, this environment "
                 f"converts with {here}: a row's Verilog may differ for that alone")
    if len(recorded) != len(spec.rows):
        progress(f"{page} records {len(recorded)} designs for {len(spec.rows)} rows: "
                 f"regenerate it with `fhe-hw table {spec.name}`")
        return 1
    stale = 0
    for i, (row, old) in enumerate(zip(spec.rows, recorded), 1):
        new = row_design(row)
        what = f"row {i} of {len(spec.rows)} ({row.unit} {row.params})"
        if new == old:
            progress(f"{what}: current (design {new})")
        else:
            stale += 1
            progress(f"{what}: STALE, routed from design {old}, the generator now makes {new}")
    if stale:
        progress(f"{stale} stale row(s): regenerate with `fhe-hw table {spec.name}`")
        return 1
    progress(f"every row current ({page})")
    return 0


def add_table_parser(subparsers):
    """Add ``table NAME`` to the ``fhe-hw`` sub-command parsers."""
    listing = "\n".join(f"  {name:15} {get_table(name).title}" for name in MODULES)
    p = subparsers.add_parser(
        "table", help="regenerate a documented results table (docs/results/)",
        formatter_class=RawDescriptionHelpFormatter,
        description="Regenerate one documented results table: synthesize its rows (cached "
                    "by unit, parameters, generated Verilog, flow, device, frequency and tool "
                    "versions) and rewrite its block in docs/results/.\n\ntables:\n" + listing)
    p.add_argument("name", metavar="NAME", help="the table (listed above)")
    for flag, dest, kw, *_ in _COMMON + _SPECIFIC:
        p.add_argument(flag, dest=dest, **kw)
    add_verbose(p)
    p.set_defaults(func=cmd_table)
