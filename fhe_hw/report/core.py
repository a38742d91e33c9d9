"""The report's building blocks: tables, plots, sections and their registry, the context that
gives sections synthesis results and baseline timings, and :func:`build_report`.

A section is one function ``fn(ctx) -> Part`` registered with :func:`section`; it imports what
it needs inside. If a unit it needs does not exist yet it raises :class:`Unavailable` (an
``ImportError`` counts too) and the report says so in place of the table; any other exception
is reported as an error of that section (with the message), never as a row.
"""

import json
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import __version__, builddir
from ..bench.baselines import machine, run_baselines
from ..flow.rows import shown, shown_flow
from ..flow.synth import short_versions, tool_versions
from ..tables.pages import git_commit
from . import committed
from .synthcache import cached_synth, load_cached
from .writers import write_json, write_markdown, write_plots

__all__ = ["Table", "Plot", "Part", "SectionResult", "Section", "Unavailable", "Context",
           "SECTIONS", "QUICK_UNITS", "section", "plan", "announce", "build_report", "ratio",
           "DEFAULT_OUT"]

DEFAULT_OUT = builddir.report_dir()


class Unavailable(Exception):
    """A unit the section needs is not there yet; the message says which."""


@dataclass
class Table:
    """``title``, ``source`` (paper file + table, or "measured here"), ``columns``, ``rows``
    (lists of cells; None prints as "—"), ``notes`` (sentences under the table)."""

    title: str
    source: str
    columns: list
    rows: list = field(default_factory=list)
    notes: list = field(default_factory=list)


@dataclass
class Plot:
    """A PNG: ``series`` maps a label to ``[(x, y), ...]``; log axes by default."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict
    logx: bool = True
    logy: bool = True


@dataclass
class Part:
    """What a section returns: tables, plots and findings (plain sentences such as "ours is
    3.2x slower than the paper")."""

    tables: list = field(default_factory=list)
    plots: list = field(default_factory=list)
    findings: list = field(default_factory=list)


@dataclass
class SectionResult:
    paper: str
    key: str
    title: str
    status: str             # "ok", "unavailable" or "error"
    message: str = ""
    tables: list = field(default_factory=list)
    plots: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self):
        return asdict(self)


@dataclass(frozen=True)
class Section:
    paper: str
    key: str
    title: str
    fn: object
    synth_rows: object = None   # callable() -> [(unit, params, flow[, options])]


SECTIONS = []

#: The units a default run may synthesize (seconds to a couple of minutes each); every other
#: configuration (the engines: minutes to half an hour of place-and-route each) is read from the
#: results pages' committed blocks (:mod:`.committed`) unless the run is ``full``.
QUICK_UNITS = frozenset({"mod-mul", "barrett-reducer", "special-reducer", "solinas-reducer",
                         "montgomery-reducer"})


def section(paper, title, synth_rows=None):
    """Register ``fn(ctx) -> Part`` as a section of ``paper`` ("000".."004", or "sw");
    ``synth_rows()`` lists the ``(unit, params, flow)`` it reads with ``ctx.synth`` so that
    :func:`build_report` can plan the run (:func:`plan`) and run the missing ones in parallel
    first."""
    def register(fn):
        SECTIONS.append(Section(paper, fn.__name__, title, fn, synth_rows))
        return fn
    return register


def ratio(ours, paper):
    """ours / paper, or None when either is missing or the paper's is zero."""
    if ours is None or paper in (None, 0):
        return None
    return ours / paper


def plan(rows, full=False):
    """``(synthesize, read)``: the distinct ``rows`` (``(unit, params, flow)``) this run
    synthesizes and those it reads from the results pages' committed blocks. ``full``
    synthesizes every row; otherwise a row a committed block holds is read from it, and of the
    others only the :data:`QUICK_UNITS` are synthesized (the rest have no result)."""
    unique = list({_row_key(*r): r for r in rows}.values())    # sections may share a row
    if full:
        return unique, []
    held = [r for r in unique if committed.lookup(*r)[0] is not None]
    return [r for r in unique if r not in held and r[0] in QUICK_UNITS], held


class Context:
    """What sections read: ``full`` (the larger set), ``synth_enabled`` (run missing syntheses;
    else only cached ones are shown), :meth:`synth`, :meth:`why`, :meth:`baseline`.

    ``planned`` are the rows this run synthesizes (:func:`plan`); any other row is read from
    the results pages' committed blocks (:func:`.committed.lookup`). ``sources`` records, for
    every row a section read, where its numbers came from."""

    def __init__(self, full=False, synth=True, baselines=True, jobs=2, planned=()):
        self.full, self.synth_enabled, self.jobs = full, synth, jobs
        self.baselines_enabled = baselines
        self._baselines = None
        self.synth_errors = {}
        self.planned = {_row_key(*r) for r in planned}
        self.sources = {}
        self._ran = {}
        self._results = {}

    def synth(self, unit, params, flow="ecp5", options=None):
        """The synthesis result of the row: for a planned row the
        :class:`~fhe_hw.flow.synth.SynthResult` (cached, or run now when synthesis is enabled;
        with synthesis disabled and nothing cached, the committed block's), for any other row
        the committed block's :class:`~.committed.Committed`; None when there is none (the
        reason is in :meth:`why`; a failed synthesis is in ``synth_errors`` too). ``options``
        are the row's own flow options (:attr:`fhe_hw.flow.rows.Row.options`)."""

        row = (unit, params, flow, options or {})
        key = _row_key(*row)
        if key in self.synth_errors:
            self._record(row, f"synthesis failed: {self.synth_errors[key]}")
            return None
        if key not in self._results:    # once: keying the cache converts the design again
            self._results[key] = self._result(key, row)
        return self._results[key]

    def _result(self, key, row):
        if key in self.planned:
            try:
                r = cached_synth(*row) if self.synth_enabled else load_cached(*row)
            except RuntimeError as e:
                self.synth_errors[key] = str(e).splitlines()[0]
                return self.synth(*row)
            if r is not None:
                self._record(row, self._ran.get(key, f"synthesis cache ({r.build_dir})"))
                return r
        r, why = committed.lookup(*row)
        if r is None:
            self._record(row, f"none: {why}")
        else:
            self._record(row, f"committed block `{r.table}` in {r.page}", r.provenance)
        return r

    def why(self, unit, params, flow="ecp5", options=None):
        """Where the row's numbers came from, or why there are none (after :meth:`synth`)."""
        return self.sources.get(_row_key(unit, params, flow, options), {}).get("source")

    def _record(self, row, source, provenance=None):
        unit, params, flow, options = row
        self.sources[_row_key(*row)] = {
            "unit": unit, "params": params, "flow": flow, "options": options,
            "source": source, "provenance": provenance}

    def prefetch(self, rows):
        """Synthesize the rows that are not cached, each once, ``jobs`` at a time."""

        if not self.synth_enabled:
            return
        unique = {_row_key(*r): r for r in rows}     # sections may share a row
        try:
            todo = [r for r in unique.values() if load_cached(*r) is None]
        except RuntimeError as e:   # tools missing: sections will say so
            self.synth_errors.update({_row_key(*r): str(e) for r in rows})
            return
        if not todo:
            return
        print(f"fhe-hw report: synthesizing {len(todo)} configuration(s), {self.jobs} at a "
              f"time", flush=True)
        with ProcessPoolExecutor(max(1, self.jobs)) as pool:
            for row, (err, seconds) in zip(todo, pool.map(_synth_worker, todo)):
                if err:
                    self.synth_errors[_row_key(*row)] = err
                else:
                    self._ran[_row_key(*row)] = f"synthesized in this run ({seconds:.0f} s)"
                print(f"  {row[0]} {row[1]}: "
                      f"{'failed: ' + err if err else f'done in {seconds:.0f} s'}", flush=True)

    def baseline(self, name_prefix):
        """The measured baseline timings whose name starts with ``name_prefix`` (measured once
        for the whole report), or [] when baselines are disabled."""
        if not self.baselines_enabled:
            return []
        if self._baselines is None:
            self._baselines = run_baselines(full=self.full)
        return [b for b in self._baselines if b.get("name", "").startswith(name_prefix)]


def _row_key(unit, params, flow="ecp5", options=None):
    key = f"{unit} {json.dumps(params, sort_keys=True, default=str)} {flow}"
    return key + (f" {json.dumps(options, sort_keys=True)}" if options else "")


def _shown_row(unit, params, flow="ecp5", options=None):
    """A synthesis row as the report prints it: unit, parameters, (flow, its own options)."""
    return f"{unit} {shown(params)} ({shown_flow(flow, options)})"


def _print_progress(text):
    print(f"  {text}", flush=True)


def _synth_worker(row):
    """``(None, seconds)`` after synthesizing ``row``, or ``(error, seconds)``."""
    start = time.monotonic()
    try:
        cached_synth(*row, progress=_print_progress)
        return None, time.monotonic() - start
    except Exception as e:  # noqa: BLE001 - reported per row
        return (f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                time.monotonic() - start)


def run_section(sec, ctx):
    start = time.monotonic()
    result = SectionResult(sec.paper, sec.key, sec.title, "ok")
    try:
        part = sec.fn(ctx)
        result.tables, result.plots, result.findings = part.tables, part.plots, part.findings
    except (Unavailable, ImportError) as e:
        result.status, result.message = "unavailable", str(e)
    except Exception as e:  # noqa: BLE001 - one broken section must not hide the others
        result.status = "error"
        result.message = f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=3)
    result.seconds = round(time.monotonic() - start, 2)
    return result


def source_commit():
    """The commit of the fhe_hw source this run executes: :func:`~fhe_hw.tables.pages.git_commit`
    of the checkout holding the package, or ``"installed fhe_hw VERSION"`` outside one."""
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists():
        return git_commit(root)
    return f"installed fhe_hw {__version__}"


def provenance(commit):
    """The run's ``commit``, date (UTC) and synthesis tool versions (or why they are missing)."""
    try:
        tools = short_versions(tool_versions())
    except (RuntimeError, OSError) as e:
        tools = f"synthesis tools not found ({e})"
    return {"commit": commit, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "tools": tools}


def announce(run, read, synth=True):
    """Print, before any work, what the run will synthesize and what it reads from the
    committed blocks."""
    what = "will synthesize (or take from the synthesis cache)" if synth else \
        "will take from the synthesis cache (--no-synth), else from the committed blocks,"
    print(f"fhe-hw report: {what} {len(run)} configuration(s):", flush=True)
    for row in run:
        print(f"  {_shown_row(*row)}", flush=True)
    if read:
        print(f"fhe-hw report: reads {len(read)} configuration(s) from the results pages' "
              f"committed blocks (docs/results; --full synthesizes them instead):", flush=True)
        for row in read:
            print(f"  {_shown_row(*row)}", flush=True)


def build_report(papers="all", *, full=False, synth=True, baselines=True, jobs=2,
                 out=DEFAULT_OUT, plots=True, sections=None):
    """Run the sections of ``papers`` ("all", one of "000".."004", or a list), write
    ``report.md``, ``report.json`` and the PNGs into ``out``; return the list of
    :class:`SectionResult`."""

    wanted = None if papers in ("all", None) else \
        {papers} if isinstance(papers, str) else set(papers)
    chosen = [s for s in (SECTIONS if sections is None else sections)
              if wanted is None or s.paper in wanted or s.paper == "sw"]
    start = time.monotonic()
    # Read before the run, so that a commit made during a long run is not credited with it.
    commit = source_commit()
    run, read = plan([row for s in chosen if s.synth_rows for row in s.synth_rows()], full)
    announce(run, read, synth)
    ctx = Context(full=full, synth=synth, baselines=baselines, jobs=jobs, planned=run)
    ctx.prefetch(run)
    results = []
    for sec in chosen:
        print(f"fhe-hw report: {sec.paper} {sec.title}", flush=True)
        results.append(run_section(sec, ctx))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"full": full, "synth": synth, "baselines": baselines,
            "seconds": round(time.monotonic() - start, 1),
            "synth_errors": ctx.synth_errors, "synth_sources": list(ctx.sources.values()),
            **provenance(commit)}
    if baselines:
        meta["machine"] = machine()
    images = write_plots(results, out) if plots else {}
    write_markdown(results, out / "report.md", meta, images)
    write_json(results, out / "report.json", meta)
    return results
