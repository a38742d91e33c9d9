"""``fhe-hw explore SPACE.yaml``: design-space exploration over unit parameters.

A space file (YAML, read with ``yaml.safe_load``: data only, nothing in it runs code)::

    name: sk-tp                      # results go to build/explore/<name>/ (default: file name)
    unit: shenoy-kumaresan           # a registered unit (fhe-hw generate --help lists them)
    fixed: {prime_bits: 32, n: 4096, source_limbs: 30, target_limbs: 30, prime_n: 65536}
    vary:                            # the cross product of these lists is the space
      lanes: [1, 2, 4, 8]
      architecture: [folded, pipelined]
    synth: true                      # false: no synthesis (cycles and the multiplier area)
    flow: ecp5-splitnets             # a target of fhe_hw.flow.synth.TARGETS (default ecp5)
    objective: atp                   # Pareto of time against area (default) or ATP
    evaluator: default               # a named evaluator (below); default "default"

:func:`load_space` checks the whole space before any work and refuses it with one line
naming the file and the key: every key known, ``synth`` a YAML boolean (``"no"`` is a string,
not false), ``flow`` a synthesis target even when not synthesizing, the parameter names those
of the unit, each value of the option's type (booleans are YAML booleans, integers YAML
integers; other options are parsed from their text as on the command line), and each value
accepted by the unit's parameter checks in at least one point (a combination the unit refuses,
such as ``lanes`` above ``n`` for one ``n`` of several, is recorded as that point's error).

Each point runs in a worker: build the unit (its parameters are checked), elaborate it once to
Amaranth's netlist (no Yosys), and key it (:func:`point_key`: unit, resolved parameters, synth
flag, flow, evaluator name, the fhe_hw and Amaranth versions, a digest of the netlist and, when
synthesizing, the tool versions). A point stored under that key in
``build/explore/<name>/<key>.json`` is read back (unless it failed); any other is evaluated
and written at once, so a rerun (after an interruption, or with more points) evaluates only the
rest, and a point whose design changed since (an edited generator) is evaluated again. A line
per point goes to standard error as it finishes, with the elapsed time. The Verilog is
generated only by synthesis (once, for the synthesis flow's own cache key).

The evaluator ``default`` (:func:`evaluate_point`) takes the unit's ``cycles()`` and, with
synth, :func:`fhe_hw.flow.synth.synth_unit` (LUT/FF/DSP/BRAM/Fmax, cached by
parameters, the generated Verilog and tool versions). Evaluators come only from
:func:`register_evaluator` or from an installed plug-in's entry point in the group
``fhe_hw.explore_evaluators`` (loaded by name, only the one the space names): a space names an
evaluator, it cannot import a module.

Time is cycles / Fmax (µs) when synthesized, else cycles. Area is [Kir25]'s LUT + FF/2 +
100·DSP + 300·BRAM when synthesized, else the multiplier area :func:`multiplier_tiles`: the
18 × 18 multiplier tiles (DSP-block equivalents) of the products in the elaborated design
(products by powers of two, which are shifts, left out). It counts what the unit multiplies,
the part of its area that grows with its multipliers; registers, memories and adders are not in
it, so it ranks points of one unit, it does not predict LUTs; a unit without multipliers has
area 0. ATP = time · area. The Pareto front
minimises (time, area) or (time, ATP).

Points run on a local process pool (``jobs`` workers) by default, or on a Dask cluster
(``cluster="tcp://host:8786"``) or a Ray cluster (``cluster="ray://host:10001"`` or ``"ray"``
for ``ray.init(address="auto")``), both optional extras (``pip install -e .[cluster]``).
Reading a space file needs PyYAML (the ``explore`` extra).
"""

import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from importlib.metadata import entry_points, version
from pathlib import Path

from .. import __version__, builddir
from ..cliargs import input_file, int_in, output_dir
from ..markdown import table as markdown_table
from ..units import get_unit, parse_bool, port_values, top_name
from .run import Progress
from .synth import TARGETS, atp_area, synth_unit, tool_versions

__all__ = ["Space", "Point", "load_space", "points", "point_key", "multiplier_tiles",
           "register_evaluator", "evaluator_names", "get_evaluator", "evaluate_point",
           "explore", "pareto_front", "add_explore_parser", "cmd_explore", "DEFAULT_OUT",
           "EVALUATOR_GROUP"]

DEFAULT_OUT = builddir.ROOT / "explore"
OBJECTIVES = ("area", "atp")
#: The entry point group through which an installed package adds evaluators.
EVALUATOR_GROUP = "fhe_hw.explore_evaluators"
#: The keys of a space and their defaults (``None``: required).
KEYS = {"name": None, "unit": None, "fixed": {}, "vary": {}, "synth": False, "flow": "ecp5",
        "objective": "area", "evaluator": "default"}
#: Operand width of the multiplier tile counted by :func:`multiplier_tiles` (ECP5 MULT18X18D).
TILE_BITS = 18

_EVALUATORS = {}


class Space(dict):
    """A checked space (:func:`load_space`): ``name``, ``unit``, ``fixed``, ``vary`` (parameter
    names as the factory's keywords, values of the options' types), ``synth``, ``flow``,
    ``objective``, ``evaluator``."""


@dataclass(frozen=True)
class Point:
    """What an evaluator gets for one point: ``unit`` (name), ``params`` (the point's
    parameters), ``synth``, ``flow``, ``component`` (the built unit), ``digest`` (of its
    elaborated netlist) and ``multiplier_tiles`` (:func:`multiplier_tiles`)."""

    unit: str
    params: dict
    synth: bool
    flow: str
    component: object
    digest: str
    multiplier_tiles: int


def register_evaluator(name):
    """Decorator: make ``fn(point: Point) -> dict`` the evaluator ``name``. The dict holds
    ``cycles`` and may hold ``time_us``, ``area`` and ``atp`` (see the module docstring)."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise ValueError(f"an evaluator name is lower-case letters, digits, - and _, not "
                         f"{name!r}")

    def decorate(fn):
        _EVALUATORS[name] = fn
        return fn
    return decorate


def evaluator_names():
    """The evaluators a space may name: the registered ones and the names of the installed
    plug-ins' entry points (none of them is loaded)."""
    return sorted(set(_EVALUATORS) | {ep.name for ep in entry_points(group=EVALUATOR_GROUP)})


def get_evaluator(name):
    """The evaluator ``name``: a registered one, else the installed entry point of that name
    in :data:`EVALUATOR_GROUP` (only that one is loaded); ValueError for any other name."""
    if name in _EVALUATORS:
        return _EVALUATORS[name]
    if isinstance(name, str) and re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        found = entry_points(group=EVALUATOR_GROUP, name=name)
        if found:
            return next(iter(found)).load()
    raise ValueError(f"evaluator must be one of {', '.join(evaluator_names())} (a name "
                     f"registered by fhe_hw or an installed plug-in), not {name!r}")


def _read(path):
    """The mapping in the YAML file ``path``; ValueError (naming the file) otherwise."""
    try:
        import yaml
    except ModuleNotFoundError:
        raise ValueError("reading a space file needs PyYAML: install the 'explore' extra "
                         "(pip install 'fhe-hw[explore]')") from None
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read the space: {getattr(e, 'strerror', None) or e}"
                         ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        where = getattr(e, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ValueError(f"{path}: not valid YAML{line}: {problem}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a space is a YAML mapping of {', '.join(KEYS)}, not "
                         f"{'an empty file' if data is None else 'a ' + type(data).__name__}")
    data.setdefault("name", Path(path).stem)
    return data


def _typed(unit, key, value, where):
    """``value`` of the option that parameter ``key`` names, checked by the option's type;
    ``(dest, value)``. ValueError naming ``where`` otherwise."""
    if not isinstance(key, str):
        raise ValueError(f"{where}: a parameter name must be a string")
    try:
        unit.resolve({key: None})
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    opt = next(o for o in unit.options if o.dest == str(key).replace("-", "_"))
    if value is None:
        return opt.dest, None
    kind = {parse_bool: "true or false", int: "an integer", str: "a string"}.get(
        opt.type, f"a value of type {getattr(opt.type, '__name__', opt.type)}")
    if opt.type is parse_bool and isinstance(value, bool) or \
            opt.type is int and isinstance(value, int) and not isinstance(value, bool):
        return opt.dest, value
    if opt.type not in (parse_bool, int) and not isinstance(value, bool) and \
            isinstance(value, (int, str) if opt.type is str else (int, float, str)):
        try:
            return opt.dest, opt.type(str(value))
        except (ValueError, TypeError, ArithmeticError, argparse.ArgumentTypeError) as e:
            raise ValueError(f"{where}: {e}") from None
    raise ValueError(f"{where}: must be {kind}, not {value!r}")


def load_space(source):
    """A checked :class:`Space` from a YAML file path or a dict (a :class:`Space` is returned
    as it is). Every refusal is a ValueError of one line naming the file (or ``space``) and the
    key: see the module docstring for what is checked."""
    if isinstance(source, Space):
        return source
    where = "space" if isinstance(source, dict) else str(source)
    data = dict(source) if isinstance(source, dict) else _read(source)
    for key in data:
        if key not in KEYS:
            raise ValueError(f"{where}: {key}: unknown key; a space has {', '.join(KEYS)}")
    space = {key: data.get(key, default) for key, default in KEYS.items()}
    for key in ("name", "unit", "flow", "objective", "evaluator"):
        if not isinstance(space[key], str):
            raise ValueError(f"{where}: {key}: "
                             + ("missing" if space[key] is None else
                                f"must be a string, not {space[key]!r}"))
    for key, check in (("name", builddir.safe_name), ("unit", get_unit)):
        try:
            unit = check(space[key])
        except ValueError as e:
            raise ValueError(f"{where}: {key}: {e}") from None
    if not isinstance(space["synth"], bool):
        raise ValueError(f"{where}: synth: must be true or false, not {space['synth']!r}")
    if space["flow"] not in TARGETS:
        raise ValueError(f"{where}: flow: must be one of {', '.join(TARGETS)}, not "
                         f"{space['flow']!r}")
    if space["objective"] not in OBJECTIVES:
        raise ValueError(f"{where}: objective: must be one of {', '.join(OBJECTIVES)}, not "
                         f"{space['objective']!r}")
    if space["evaluator"] not in evaluator_names():
        raise ValueError(f"{where}: evaluator: must be one of {', '.join(evaluator_names())}"
                         f" (a name registered by fhe_hw or an installed plug-in), not "
                         f"{space['evaluator']!r}")
    fixed, vary = {}, {}
    for key in ("fixed", "vary"):
        if not isinstance(space[key] or {}, dict):
            raise ValueError(f"{where}: {key}: must be a mapping of parameter names, not "
                             f"{space[key]!r}")
    for name, value in (space["fixed"] or {}).items():
        dest, value = _typed(unit, name, value, f"{where}: fixed.{name}")
        fixed[dest] = value
    for name, values in (space["vary"] or {}).items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"{where}: vary.{name}: must be a non-empty list, not {values!r}")
        typed = [_typed(unit, name, v, f"{where}: vary.{name}") for v in values]
        dest = typed[0][0]
        if dest in fixed or dest in vary:
            raise ValueError(f"{where}: vary.{name}: given twice (also in "
                             f"{'fixed' if dest in fixed else 'vary'})")
        vary[dest] = [v for _, v in typed]
    space = Space(space, fixed=fixed, vary=vary)
    _check_values(unit, space, where)
    return space


def _check_values(unit, space, where):
    """ValueError naming the key unless each value of the space passes the unit's parameter
    checks (its timing contract) in at least one point."""
    refused, every = [], points(space)
    for params in every:
        try:
            unit.latency(params)
            refused.append(None)
        except (ValueError, TypeError) as e:
            refused.append(str(e))
    if all(refused):
        name = re.match(r"[a-z][a-z0-9_]*", refused[0])
        name = name.group(0) if name else ""
        key = (f"fixed.{name}" if name in space["fixed"] else f"vary.{name}"
               if name in space["vary"] else "fixed" if not space["vary"] else "vary")
        raise ValueError(f"{where}: {key}: {unit.name} refuses every point: {refused[0]}")
    for name, values in space["vary"].items():
        for value in values:
            errors = [e for p, e in zip(every, refused) if p[name] == value]
            if all(errors):
                raise ValueError(f"{where}: vary.{name}: {unit.name} refuses {value!r} in "
                                 f"every point: {errors[0]}")


def points(space):
    """Every parameter dict of the space: ``fixed`` updated with each combination of
    ``vary`` (in the order of the file)."""
    keys = list(space["vary"])
    return [dict(space["fixed"], **dict(zip(keys, combo)))
            for combo in itertools.product(*(space["vary"][k] for k in keys))]


def multiplier_tiles(netlist):
    """The :data:`TILE_BITS` × :data:`TILE_BITS` multiplier tiles of the products in an
    Amaranth netlist: ⌈a/18⌉ · ⌈b/18⌉ for operand widths a, b (without the zero or sign
    extension Amaranth adds; a constant's width up to its highest one), products by a power of
    two (shifts) and products with an operand narrower than 2 bits left out. An estimate of the
    DSP blocks the design asks for (the ECP5 flow maps products by constants to DSP blocks
    too), made without synthesis."""
    from amaranth.hdl import _nir

    def width(value):
        nets = list(value)
        top = nets[-1] if nets else None
        while len(nets) > 1 and (nets[-1] == _nir.Net.from_const(0) or
                                 (nets[-1] == top and nets[-2] == top)):
            nets.pop()
        return len(nets)

    def shift(value):  # a product by a constant power of two (or zero) is no multiplier
        return value.is_const and sum(net == _nir.Net.from_const(1) for net in value) <= 1

    total = 0
    for cell in netlist.cells:
        if isinstance(cell, _nir.Operator) and cell.operator == "*" and \
                not any(shift(value) for value in cell.inputs):
            a, b = (width(value) for value in cell.inputs)
            if a >= 2 and b >= 2:
                total += math.ceil(a / TILE_BITS) * math.ceil(b / TILE_BITS)
    return total


def _elaborate(component, unit_name):
    """``(digest, multiplier tiles)`` of ``component``'s Amaranth netlist (one elaboration,
    the one Verilog is generated from, without Yosys)."""
    from amaranth.hdl import Fragment, _ir

    netlist = _ir.build_netlist(Fragment.get(component, None), ports=port_values(component),
                                name=top_name(unit_name))
    return hashlib.sha256(repr(netlist).encode()).hexdigest()[:16], multiplier_tiles(netlist)


def point_key(space, params, design, tools=None):
    """The cache name of one point: a hash of the unit, its resolved parameters, the synth
    flag, flow, evaluator, the fhe_hw and Amaranth versions, ``design`` (the digest of the
    point's elaborated netlist, or the error that refuses its parameters) and ``tools`` (the
    tool versions when synthesizing). Computed once per point, in the worker that builds it."""
    unit = get_unit(space["unit"])
    text = json.dumps({"unit": unit.name, "params": unit.resolve(params),
                       "synth": space["synth"], "flow": space["flow"],
                       "evaluator": space["evaluator"], "fhe_hw": __version__,
                       "amaranth": version("amaranth"), "design": design, "tools": tools},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@register_evaluator("default")
def evaluate_point(point):
    """The ``default`` evaluator: ``{"cycles", "multiplier_tiles", "time_us", "area",
    "atp"}``, with synth also ``"lut", "ff", "dsp", "bram", "fmax_mhz", "build_dir"``
    (time, area and ATP as in the module docstring)."""
    cycles = get_unit(point.unit).cycles(point.params)
    out = {"cycles": cycles, "multiplier_tiles": point.multiplier_tiles}
    if point.synth:
        r = synth_unit(point.unit, point.params, point.flow, reuse=True)
        area = atp_area(r.lut, r.ff, r.dsp, r.bram)
        time_us = cycles / r.fmax_mhz
        out.update(lut=r.lut, ff=r.ff, dsp=r.dsp, bram=r.bram, fmax_mhz=r.fmax_mhz,
                   time_us=time_us, area=area, atp=time_us * area, build_dir=r.build_dir)
    else:
        out.update(time_us=None, area=point.multiplier_tiles,
                   atp=cycles * point.multiplier_tiles)
    return out


def _run_point(evaluator, space, params, known):
    """One point in a worker: build, elaborate and key it; ``{"key", "cached": True}`` when
    ``key`` is in ``known``, else the evaluator's record (``ok``, its fields or ``error``),
    with the point's ``seconds``."""
    start = time.monotonic()
    unit = get_unit(space["unit"])
    tools = None
    try:
        component = unit.build(**params)
        digest, tiles = _elaborate(component, unit.name)
        design = digest
        if space["synth"]:
            tools = tool_versions(space["flow"])
    except (ValueError, TypeError, RuntimeError) as e:  # refused parameters, a missing tool
        component, design = None, {"error": f"{type(e).__name__}: {e}"}
    key = point_key(space, params, design, tools)
    if key in known:
        return {"key": key, "cached": True, "seconds": round(time.monotonic() - start, 3)}
    if component is None:
        return {"key": key, "ok": False, "error": design["error"],
                "seconds": round(time.monotonic() - start, 3)}
    try:
        result = get_evaluator(evaluator)(Point(unit.name, params, space["synth"],
                                                space["flow"], component, digest, tiles))
        return {"key": key, "ok": True, **result, "seconds": round(time.monotonic() - start, 3)}
    except Exception as e:  # noqa: BLE001 - one bad point must not stop the space
        return {"key": key, "ok": False, "error": f"{type(e).__name__}: {e}",
                "seconds": round(time.monotonic() - start, 3)}


def _metrics(record, objective):
    time_v = record.get("time_us") if record.get("time_us") is not None else record["cycles"]
    other = record.get("atp") if objective == "atp" else record.get("area")
    return time_v, other


def pareto_front(records, objective="area"):
    """The records not dominated in (time, area) or (time, ATP): no other record is at least
    as good in both and better in one. Records lacking the second metric (a plug-in
    evaluator may leave it out) are compared on time alone."""
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


#: Seconds to wait for a Dask scheduler before ``--cluster`` is refused.
CONNECT_TIMEOUT = 5


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
            try:
                self.client = Client(cluster, timeout=CONNECT_TIMEOUT)
            except OSError as e:    # Dask's connect timeout, a refused or unknown address
                raise ValueError(f"--cluster {cluster}: no Dask scheduler answered within "
                                 f"{CONNECT_TIMEOUT} s ({e})") from e
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
            on_result=None, progress=None):
    """Evaluate every point of ``space`` (a :class:`Space`, dict, or YAML path) not yet cached
    under ``out/<name>/``; return ``{"records", "pareto", "evaluated", "cached", "dir"}``
    where ``evaluated`` lists the points computed by this call. ``synth`` overrides the
    space's flag; ``limit`` stops after that many new evaluations (a deliberate interruption);
    ``on_result(record)`` is called after each new record is saved (an exception there stops
    the run, the saved records stay); ``progress(text)`` (a :class:`fhe_hw.flow.run.Progress`)
    hears what runs where and one line per point as it finishes, cached or evaluated."""
    space = Space(load_space(space))
    if synth is not None:
        space["synth"] = bool(synth)
    say = progress or (lambda text: None)
    pts = points(space)
    workers = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    executor = _Executor(workers, cluster)      # a cluster that does not answer: nothing written
    try:
        return _explore(space, executor, pts, workers, cluster, out, limit, on_result, say)
    finally:
        executor.close()


def _explore(space, executor, pts, workers, cluster, out, limit, on_result, say):
    """:func:`explore` on a connected ``executor``."""
    # The space's name is one safe path component: ``name: ../../x`` stays inside ``out``.
    folder = (builddir.explore_dir(space["name"]) if Path(out) == DEFAULT_OUT
              else Path(out, builddir.safe_name(space["name"])))
    folder.mkdir(parents=True, exist_ok=True)
    stored = {}
    for path in folder.glob("*.json"):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        # a failed point (a tool that crashed, a refused combination) is tried again
        if isinstance(record, dict) and record.get("key") == path.stem and record.get("ok"):
            stored[path.stem] = record
    say(f"{len(pts)} points of {space['unit']}, "
        + (f"cluster {cluster}" if cluster else f"{workers} worker(s)")
        + f", synth {'on' if space['synth'] else 'off'}; results in {folder}")
    records, evaluated, cached = [None] * len(pts), [], 0
    calls = [(space["evaluator"], dict(space), params, frozenset(stored)) for params in pts]
    for i, result in executor.run(calls):
        if limit is not None and len(evaluated) >= limit:
            break
        params = pts[i]
        shown = ", ".join(f"{k}={params[k]}" for k in space["vary"]) or "the point"
        if result.get("cached"):
            records[i] = stored[result["key"]]
            cached += 1
            say(f"{shown}: cached ({result['seconds']:.1f} s to elaborate and key)")
            continue
        record = {"key": result.pop("key"), "unit": space["unit"], "params": params,
                  **result}
        tmp = folder / f"{record['key']}.json.tmp"
        tmp.write_text(json.dumps(record, indent=1, default=str))
        tmp.replace(folder / f"{record['key']}.json")
        records[i] = record
        evaluated.append(record)
        say(f"{shown}: " + (f"ok in {record['seconds']:.1f} s" if record["ok"] else
                            f"error: {record['error']}"))
        if on_result is not None:
            on_result(record)
        if limit is not None and len(evaluated) >= limit:
            break
    ordered = [r for r in records if r is not None]
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
                                                        else "area (18×18 multiplier tiles)")
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
    space = load_space(args.space)  # every refusal names the file and the key
    summary = explore(space, jobs=args.jobs, cluster=args.cluster, out=args.out,
                      synth=False if args.no_synth else None, progress=Progress("explore"))
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
                        "cluster (default: local processes)")
    p.add_argument("--no-synth", action="store_true", help="cycles only, no synthesis")
    p.add_argument("--out", type=output_dir, default=str(DEFAULT_OUT), help="results directory")
    p.set_defaults(func=cmd_explore)
