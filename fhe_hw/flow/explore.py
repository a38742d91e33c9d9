"""``fhe-hw explore SPACE.yaml``: design-space exploration over unit parameters.

A space file (YAML)::

    name: sk-tp                      # results go to build/explore/<name>/
    unit: shenoy-kumaresan           # a registered unit (fhe-hw generate --help lists them)
    fixed: {bits: 32, n: 4096, l: 30, k: 30, prime_n: 65536}
    vary:                            # the cross product of these lists is the space
      tp: [1, 2, 4, 8]
      architecture: [folded, pipelined]
    synth: true                      # false: cycles only (no resources, no Fmax)
    flow: ecp5-splitnets             # a target of fhe_hw.flow.synth.TARGETS
    objective: atp                   # Pareto of time against area (default) or ATP

Each point runs generate (build the unit: parameters are validated) → cycles (the unit's
``cycles()``, tied to simulation by its tests; ``latency`` for fixed-latency units) → synth
(:func:`fhe_hw.report.synthcache.cached_synth`: LUT/FF/DSP/BRAM/Fmax, itself cached by
parameters, generated Verilog and tool versions). Each finished point is written at once to
``build/explore/<name>/<hash>.json`` (:func:`point_key`: unit, parameters, synth, flow, the
generated Verilog, ``cycles()``, tool versions); a rerun (after an interruption, or with more
points) reads those and evaluates only the rest, and a point whose design changed since is
evaluated again.

Time is cycles / Fmax (µs) when synthesized, else cycles; area is [Kir25]'s LUT + FF/2 + 100·DSP +
300·BRAM when synthesized, else the unit's modular multiplier count (``arithmetic_units["MM"]``)
as a proxy; ATP = time · area. The Pareto front minimises (time, area) or (time, ATP).

Points run on a local process pool (``jobs`` workers) by default, or on a Dask cluster
(``cluster="tcp://host:8786"``) or a Ray cluster (``cluster="ray://host:10001"`` or ``"ray"``
for ``ray.init(address="auto")``), both optional extras (``pip install -e .[cluster]``).
"""

import argparse
import hashlib
import importlib
import importlib.util
import itertools
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from ..cliargs import input_file, int_in, output_dir
from ..markdown import table as markdown_table
from ..report.core import atp_area
from ..report.synthcache import cached_synth
from ..units import get_unit, to_verilog
from . import builddir
from .run import Progress
from .synth import design_digest, tool_versions

__all__ = ["Space", "load_space", "points", "point_key", "evaluate_point", "explore",
           "pareto_front", "add_explore_parser", "cmd_explore", "DEFAULT_OUT"]

DEFAULT_OUT = builddir.ROOT / "explore"
OBJECTIVES = ("area", "atp")


class Space(dict):
    """A parsed space: ``name``, ``unit``, ``fixed``, ``vary``, ``synth``, ``flow``,
    ``objective``, ``evaluator`` ("module:function", default :func:`evaluate_point`)."""


def load_space(source):
    """A :class:`Space` from a YAML file path, YAML text or a dict; ValueError when a key is
    missing or wrong, or a varied parameter has no values."""
    if isinstance(source, dict):
        data = dict(source)
    else:
        import yaml
        text = Path(source).read_text() if Path(str(source)).exists() else str(source)
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ValueError(f"the space is not valid YAML: {str(e).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise ValueError("a space must be a YAML mapping of name, unit, fixed, vary, ...")
        if "name" not in data and Path(str(source)).exists():
            data["name"] = Path(source).stem
    unknown = set(data) - {"name", "unit", "fixed", "vary", "synth", "flow", "objective",
                           "evaluator"}
    if unknown:
        raise ValueError(f"unknown space keys: {', '.join(sorted(unknown))}")
    for key in ("name", "unit"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"space needs a string {key!r}")
    fixed, vary = data.get("fixed") or {}, data.get("vary") or {}
    if not isinstance(fixed, dict) or not isinstance(vary, dict):
        raise ValueError("fixed and vary must be mappings")
    for k, v in vary.items():
        if not isinstance(v, list) or not v:
            raise ValueError(f"vary.{k} must be a non-empty list, not {v!r}")
    objective = data.get("objective", "area")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    return Space(name=data["name"], unit=data["unit"], fixed=fixed, vary=vary,
                 synth=bool(data.get("synth", False)), flow=data.get("flow", "ecp5"),
                 objective=objective,
                 evaluator=data.get("evaluator", "fhe_hw.flow.explore:evaluate_point"))


def points(space):
    """Every parameter dict of the space: ``fixed`` updated with each combination of
    ``vary`` (in the order of the file)."""
    keys = list(space["vary"])
    return [dict(space["fixed"], **dict(zip(keys, combo)))
            for combo in itertools.product(*(space["vary"][k] for k in keys))]


def point_key(space, params):
    """The cache name of one point: a hash of unit, parameters, synth flag, flow, evaluator
    and what the generator makes of them now: the unit's Verilog and ``cycles()`` (or the
    error that refuses the parameters) and, when synthesizing, the tool versions. A point
    stored before an edit of the generator is evaluated again."""
    unit = get_unit(space["unit"])
    try:
        made = {"design": design_digest(to_verilog(unit.build(**params), unit.name)),
                "cycles": unit.cycles(params)}
    except (ValueError, TypeError) as error:
        made = {"error": str(error)}
    if space["synth"]:
        made["tools"] = tool_versions(space["flow"])
    text = json.dumps({"unit": space["unit"], "params": params, "synth": space["synth"],
                       "flow": space["flow"], "evaluator": space["evaluator"], **made},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def evaluate_point(unit, params, synth=False, flow="ecp5"):
    """One point: ``{"cycles", "mm", and with synth "lut", "ff", "dsp", "bram",
    "fmax_mhz", "time_us", "area", "atp"}`` (time/area/ATP as in the module docstring)."""

    component = get_unit(unit).build(**params)
    out = {"cycles": get_unit(unit).cycles(params),
           "mm": getattr(component, "arithmetic_units", {}).get("MM")}
    if synth:
        r = cached_synth(unit, params, flow)
        area = atp_area(r.lut, r.ff, r.dsp, r.bram)
        time_us = out["cycles"] / r.fmax_mhz
        out.update(lut=r.lut, ff=r.ff, dsp=r.dsp, bram=r.bram, fmax_mhz=r.fmax_mhz,
                   time_us=time_us, area=area, atp=time_us * area, build_dir=r.build_dir)
    else:
        out.update(time_us=None, area=out["mm"],
                   atp=None if out["mm"] is None else out["cycles"] * out["mm"])
    return out


def _resolve(name):
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


def _run_point(evaluator, unit, params, synth, flow):
    start = time.monotonic()
    try:
        result = _resolve(evaluator)(unit, params, synth=synth, flow=flow)
        return {"ok": True, **result, "seconds": round(time.monotonic() - start, 3)}
    except Exception as e:  # noqa: BLE001 - one bad point must not stop the space
        return {"ok": False, "error": f"{type(e).__name__}: {e}",
                "seconds": round(time.monotonic() - start, 3)}


def _metrics(record, objective):
    time_v = record.get("time_us") if record.get("time_us") is not None else record["cycles"]
    other = record.get("atp") if objective == "atp" else record.get("area")
    return time_v, other


def pareto_front(records, objective="area"):
    """The records not dominated in (time, area) or (time, ATP): no other record is at least
    as good in both and better in one. Records lacking the second metric are compared on time
    alone."""
    ok = [r for r in records if r.get("ok")]
    out = []
    for r in ok:
        t, a = _metrics(r, objective)
        dominated = False
        for s in ok:
            if s is r:
                continue
            u, b = _metrics(s, objective)
            if a is None or b is None:
                better = u < t
            else:
                better = u <= t and b <= a and (u < t or b < a)
            if better:
                dominated = True
                break
        if not dominated:
            out.append(r)
    return sorted(out, key=lambda r: _metrics(r, objective)[0])


class _Executor:
    """submit(fn, *args) -> future-like, as_completed(futures), close(); local processes,
    Dask or Ray."""

    def __init__(self, jobs, cluster):
        self.kind = "local" if not cluster else "ray" if cluster.startswith("ray") else "dask"
        if self.kind == "local":
            self.pool = ProcessPoolExecutor(max(1, jobs)) if jobs > 1 else None
        elif self.kind == "dask":
            try:
                from dask.distributed import Client
            except ImportError as e:
                raise ImportError("--cluster needs dask[distributed]: pip install -e "
                                  ".[cluster]") from e
            self.client = Client(cluster)
        else:
            try:
                import ray
            except ImportError as e:
                raise ImportError("a ray:// cluster needs ray: pip install ray") from e
            ray.init(address="auto" if cluster == "ray" else cluster, ignore_reinit_error=True)
            self.ray, self.remote = ray, ray.remote(_run_point)

    def run(self, calls):
        """Yield (index, result) as they finish."""
        if self.kind == "local" and self.pool is None:
            for i, args in enumerate(calls):
                yield i, _run_point(*args)
        elif self.kind == "local":
            futures = {self.pool.submit(_run_point, *a): i for i, a in enumerate(calls)}
            for f in as_completed(futures):
                yield futures[f], f.result()
        elif self.kind == "dask":
            from dask.distributed import as_completed as dask_completed
            futures = {self.client.submit(_run_point, *a, pure=False): i
                       for i, a in enumerate(calls)}
            for f in dask_completed(list(futures)):
                yield futures[f], f.result()
        else:
            refs = {self.remote.remote(*a): i for i, a in enumerate(calls)}
            pending = list(refs)
            while pending:
                done, pending = self.ray.wait(pending, num_returns=1)
                yield refs[done[0]], self.ray.get(done[0])

    def close(self):
        if self.kind == "local" and self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        elif self.kind == "dask":
            self.client.close()


def explore(space, *, jobs=None, cluster=None, out=DEFAULT_OUT, synth=None, limit=None,
            on_result=None):
    """Evaluate every point of ``space`` (a :class:`Space`, dict, or YAML path/text) not yet
    cached under ``out/<name>/``; return ``{"records", "pareto", "evaluated", "cached",
    "dir"}`` where ``evaluated`` lists the points computed by this call. ``synth`` overrides the
    space's flag; ``limit`` stops after that many new evaluations (a deliberate interruption);
    ``on_result(record)`` is called after each new record is saved (an exception there stops
    the run, the saved records stay)."""
    space = load_space(space)
    if synth is not None:
        space["synth"] = bool(synth)
    # The space's name is one safe path component: ``name: ../../x`` stays inside ``out``.
    folder = (builddir.explore_dir(space["name"]) if Path(out) == DEFAULT_OUT
              else Path(out, builddir.safe_name(space["name"])))
    folder.mkdir(parents=True, exist_ok=True)
    records, todo = {}, []
    for params in points(space):
        key = point_key(space, params)
        path = folder / f"{key}.json"
        if path.exists():
            try:
                records[key] = json.loads(path.read_text())
                continue
            except ValueError:
                pass
        todo.append((key, params))
    cached = len(records)
    if limit is not None:
        todo = todo[:limit]
    evaluated = []
    executor = _Executor(jobs if jobs is not None else min(2, os.cpu_count() or 1), cluster)
    try:
        calls = [(space["evaluator"], space["unit"], params, space["synth"], space["flow"])
                 for _, params in todo]
        for i, result in executor.run(calls):
            key, params = todo[i]
            record = {"key": key, "unit": space["unit"], "params": params, **result}
            tmp = folder / f"{key}.json.tmp"
            tmp.write_text(json.dumps(record, indent=1, default=str))
            tmp.replace(folder / f"{key}.json")
            records[key] = record
            evaluated.append(record)
            if on_result is not None:
                on_result(record)
    finally:
        executor.close()
    ordered = [records[point_key(space, p)] for p in points(space)
               if point_key(space, p) in records]
    front = pareto_front(ordered, space["objective"])
    summary = {"space": dict(space), "records": ordered, "pareto": front,
               "evaluated": evaluated, "cached": cached, "dir": str(folder)}
    (folder / "results.json").write_text(json.dumps(
        {k: v for k, v in summary.items() if k != "evaluated"}, indent=1, default=str))
    (folder / "pareto.md").write_text(markdown(summary))
    return summary


def markdown(summary):
    space = summary["space"]
    vary = list(space["vary"])
    second = "ATP" if space["objective"] == "atp" else ("area" if space["synth"]
                                                        else "area (MM proxy)")
    cols = vary + ["cycles", "time µs" if space["synth"] else "time (cycles)", second,
                   "Pareto"]
    front = {r["key"] for r in summary["pareto"]}
    rows = []
    for r in summary["records"]:
        values = [r["params"].get(k) for k in vary]
        if not r.get("ok"):
            rows.append([*values, f"error: {r.get('error')}", None, None, ""])
            continue
        t, a = _metrics(r, space["objective"])
        rows.append([*values, r["cycles"], f"{t:.4g}", None if a is None else f"{a:.4g}",
                     "*" if r["key"] in front else ""])
    return (f"# {space['name']}: {space['unit']}\n\nfixed: {space['fixed']}; synth: "
            f"{space['synth']}\n\n" + markdown_table(cols, rows))


def cmd_explore(args):
    try:
        space = load_space(args.space)
    except ValueError as e:
        raise ValueError(f"{args.space}: {e}") from None
    say = Progress("explore")

    def progress(record):  # one line per evaluated point: a synthesized sweep runs for hours
        say(f"{record['params']}: " + ("ok" if record.get("ok") else
                                        f"error: {record.get('error')}"))
    summary = explore(space, jobs=args.jobs, cluster=args.cluster, out=args.out,
                      synth=False if args.no_synth else None, on_result=progress)
    print(markdown(summary), end="")
    print(f"{len(summary['evaluated'])} evaluated, {summary['cached']} from the cache; "
          f"wrote {summary['dir']}/results.json, pareto.md", file=sys.stderr)
    failed = [r for r in summary["records"] if not r.get("ok")]
    return 1 if failed else 0


def _cluster(address):
    """An argparse type: a ``--cluster`` address whose client package is installed (checked
    before anything runs, without importing it)."""
    module, extra = (("ray", "pip install ray") if address.startswith("ray") else
                     ("distributed", "install the 'cluster' extra: pip install 'fhe-hw[cluster]'"))
    if importlib.util.find_spec(module) is None:
        raise argparse.ArgumentTypeError(f"{address} needs the Python package {module!r}: "
                                         f"{extra}")
    return address


def add_explore_parser(subparsers):
    """Add ``explore SPACE.yaml`` to the ``fhe-hw`` sub-command parsers."""
    p = subparsers.add_parser(
        "explore", help="design-space exploration: cycles, resources, Pareto front",
        description="Evaluate every point of a YAML design space (generate, cycles, synth), "
                    "cached per point under build/explore/<name>/, and print the Pareto front.")
    p.add_argument("space", type=input_file,
                   help="YAML space file (see fhe_hw/flow/explore.py, examples/)")
    p.add_argument("--jobs", type=int_in(1, 64), default=None,
                   help="local worker processes (default 2)")
    p.add_argument("--cluster", type=_cluster,
                   help="Dask scheduler address (tcp://host:8786) or ray://... / ray for a Ray "
                        "cluster")
    p.add_argument("--no-synth", action="store_true", help="cycles only, no synthesis")
    p.add_argument("--out", type=output_dir, default=str(DEFAULT_OUT), help="results directory")
    p.set_defaults(func=cmd_explore)
