"""Shared by the table modules: running rows through :func:`fhe_hw.flow.synth.synth_unit`."""

from concurrent.futures import ProcessPoolExecutor

from ..flow.synth import short_versions, synth_unit
from ..units import get_unit

__all__ = ["synth_rows", "ecp5_facts", "latency", "flow_cell"]


def latency(row):
    """The row's latency from the unit's timing contract (every registered unit has one: its
    plan's, or the ``latency`` function it was registered with)."""
    return get_unit(row.unit).latency(row.params)


def flow_cell(row):
    """A table's flow cell: the row's target, and the placer, router and floorplan where it sets
    its own."""
    placer, router = row.options.get("placer"), row.options.get("router")
    floorplan = row.options.get("floorplan")
    return f"`{row.target}`" + (f", {placer} placer" if placer else "") + \
        (f", {router}" if router else "") + (f", {floorplan} floorplan" if floorplan else "")


def _one(job):
    row, kw, progress = job
    return synth_unit(row.unit, row.params, **row.synth_kw(), **kw, progress=progress)


def synth_rows(rows, args, progress, **kw):
    """The :class:`~fhe_hw.flow.synth.SynthResult` of every row (in order), ``args.jobs`` at a
    time; ``args.reuse`` takes cached results. ``progress`` hears each row's stages (tool,
    elapsed time, log path) from the worker building it, so it must be picklable (the table
    command's :class:`~fhe_hw.flow.run.Progress`), and each finished row."""
    jobs = [(row, dict(kw, reuse=args.reuse), progress) for row in rows]
    progress(f"{len(rows)} synthesis run(s), {args.jobs} at a time")
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for row, result in zip(rows, pool.map(_one, jobs)):
            fmax = result.fmax_mhz if result.fmax_mhz is not None else result.pnr
            progress(f"{row.unit} {row.params}: {result.lut} LUT, {fmax} MHz, "
                     f"{result.runtime_s.get('total', 0):.0f} s ({result.build_dir})")
            results.append(result)
    return results


def ecp5_facts(results):
    """Provenance facts of ECP5 ``results`` (None for a row not routed): the first one's
    tools, device and frequency, and ``designs``, every routed row's design digest in order
    (:func:`~fhe_hw.flow.synth.design_digest`, from its cache key; None without one)."""
    routed = [r for r in results if r is not None]
    first = routed[0]
    return {"tools": short_versions(first.tools),
            "device": f"ECP5 LFE5U-85F (`--{first.device}`, {first.package})",
            "freq_mhz": first.freq_target_mhz,
            "designs": [r.key["design"] if r.key else None for r in routed]}
