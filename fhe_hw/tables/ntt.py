"""``fhe-hw table ntt`` and ``fhe-hw table butterflies``: resources and Fmax on ECP5-85F of the
shift-only units and the fully parallel NTT (rows :data:`fhe_hw.ntt.configs.NTT_TABLE`) and of
the butterflies (:data:`fhe_hw.ntt.configs.BUTTERFLY_TABLE`).

A row with a ``not_routed`` reason (measured earlier: it does not fit, or nextpnr was stopped)
is not rerun; the reason stands in its place.
"""

from ..markdown import table as markdown_table
from ..ntt.configs import BUTTERFLY_TABLE, NTT_TABLE
from ..units import get_unit
from .common import ecp5_facts, latency, synth_rows
from .pages import TableSpec

__all__ = ["TABLES", "markdown"]

_FLAGS = {"ecp5-splitnets": " (splitnets)", "ecp5-splitnets-static": " (splitnets, static placer)"}


def _shown(params):
    return ", ".join(f"{k}={v:#x}" if isinstance(v, int) and v > 1 << 16 else f"{k}={v}"
                     for k, v in params.items())


def markdown(entries, results, cycles=True):
    """``entries``: :class:`~fhe_hw.ntt.configs.NttRow`; ``results``: a SynthResult or None
    (a row not rerun) for each; ``cycles``: a column with each row's ``cycles()`` of one
    transform (the registry's timing contract)."""
    cells = []
    for entry, r in zip(entries, results):
        row = entry.row
        timing = [get_unit(row.unit).cycles(row.params)] if cycles else []
        if r is None:
            cells.append([f"`{row.unit}`", _shown(row.params), entry.note, "", *timing,
                          entry.not_routed, "", "", ""])
            continue
        lat = latency(row)
        cells.append([f"`{row.unit}`", _shown(row.params),
                      f"{entry.note}{_FLAGS.get(row.target, '')}", "" if lat is None else lat,
                      *timing, r.lut, r.ff, r.dsp, f"{r.fmax_mhz:.1f}"])
    header = ["unit", "params", "what", "latency", *["cycles()"] * cycles, "LUT", "FF", "DSP",
              "Fmax (MHz)"]
    lines = [markdown_table(header, cells).rstrip("\n")]
    targets = {e.row.target for e in entries}
    notes = ["Out of context with every port registered; LUT = LUT4 + 2 per CCU2C, "
             "DSP = MULT18X18D, Fmax from nextpnr."]
    if targets & set(_FLAGS):
        notes.append("(splitnets): Yosys ABC9 aborts on that design (YosysHQ/yosys#4349), so "
                     "it ran `hierarchy; proc; flatten; splitnets; synth_ecp5`.")
    if "ecp5-splitnets-static" in targets:
        notes.append("(static placer): placed by nextpnr's `--placer static` and routed by "
                     "`--router router2`.")
    if any(e.not_routed for e in entries):
        notes.append("Rows without numbers were not routed when measured and are not rerun "
                     "by this command.")
    lines += ["", " ".join(notes)]
    return "\n".join(lines) + "\n"


def _routed(entries):
    """The rows of ``entries`` this table routes (not those marked ``not_routed``)."""
    return tuple(e.row for e in entries if not e.not_routed)


def _generator(entries, cycles):
    def generate(args, progress):
        run = [e for e in entries if not e.not_routed]
        done = dict(zip(map(id, run), synth_rows([e.row for e in run], args, progress)))
        results = [done.get(id(e)) for e in entries]
        return markdown(entries, results, cycles), {
            **ecp5_facts(results), "json": [r.to_dict() for r in results if r is not None]}
    return generate


TABLES = {t.name: t for t in (
    TableSpec("ntt", "ntt.md", "shift-only units, parallel NTT on ECP5-85F",
              _generator(NTT_TABLE, cycles=True), rows=_routed(NTT_TABLE)),
    TableSpec("butterflies", "ntt.md", "NTT butterflies on ECP5-85F",
              _generator(BUTTERFLY_TABLE, cycles=False), rows=_routed(BUTTERFLY_TABLE)),
)}
