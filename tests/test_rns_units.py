"""RNS base-extension registry entries (`fhe-hw generate` / `fhe-hw synth` names), the
iteration counts of all engines at [Kir25] Table 4.6's parameter sets, and the engines that
``tools/cosim_rns.py`` builds."""

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from helpers import kawamura, mixed_radix, sk

from fhe_hw.model import rns as model
from fhe_hw.rns import default_bases
from fhe_hw.rns.configs import SIDE_BY_SIDE_TABLE, SYNTH_TABLE
from fhe_hw.rns.cosim import make_engine
from fhe_hw.units import get_unit, to_verilog, top_name

TINY = {"prime_bits": 32, "n": 16, "source_limbs": 2, "target_limbs": 2}
#: mixed-radix: the primes of N = 16 allow a 5-bit Montgomery word, whose deep rounds would need
#: more multiplier registers than the limit to make the iterative loop a power of two
UNITS = {"shenoy-kumaresan": ("ShenoyKumaresan", {"lanes": 2}),
         "fast-base-conversion": ("FastBaseConversion", {"lanes": 2}),
         "kawamura": ("Kawamura", {"rho": 8}),
         "mixed-radix": ("MixedRadix", {"deep": False})}

#: [Kir25] Table 4.6: (N, TP, l) -> iterations of SK pipelined, SK folded, Cox-Rower,
#: MRC pipelined, MRC iterative.
TABLE_4_6 = {(2**16, 32, 17): (628736, 661504, 1179648, 65536, 1179648),
             (2**14, 32, 7): (29184, 32256, 131072, 16384, 131072),
             (2**12, 64, 4): (1344, 1536, 20480, 4096, 20480)}


@pytest.mark.parametrize("name", list(UNITS))
def test_registered_name_builds_the_engine_with_defaults(name):
    unit = get_unit(name).build()
    assert type(unit).__name__ == UNITS[name][0]
    assert unit.cycles() > 0


@pytest.mark.parametrize("name", list(UNITS))
def test_generate_writes_verilog_with_stream_ports(name):
    unit = get_unit(name).build(**TINY, **UNITS[name][1])
    text = to_verilog(unit, name)
    assert f"module {top_name(name)}(" in text
    for port in ("i__payload", "i__valid", "i__ready", "o__payload", "o__valid", "o__ready"):
        assert port in text


def test_generate_rejects_bad_parameters_before_building():
    with pytest.raises(ValueError, match="lanes must be a power of two, not 3"):
        get_unit("shenoy-kumaresan").build(**TINY, lanes=3)


@pytest.mark.parametrize("params", list(TABLE_4_6), ids=lambda p: f"N={p[0]},TP={p[1]},l={p[2]}")
def test_shenoy_kumaresan_cycles_reproduce_table_4_6(params):
    n, tp, l = params
    source, target, red = default_bases(32, n, l, l, redundant=True)
    pipelined = sk(source, target, red, n, tp, "pipelined")
    folded = sk(source, target, red, n, tp, "folded")
    assert (pipelined.cycles(), folded.cycles()) == TABLE_4_6[params][:2]
    assert pipelined.cycles() == model.iterations_sk_pipelined(n, l, tp)
    assert folded.cycles() == model.iterations_sk_folded(n, l, tp)


@pytest.mark.parametrize("params", list(TABLE_4_6), ids=lambda p: f"N={p[0]},TP={p[1]},l={p[2]}")
def test_cox_rower_iterations_reproduce_table_4_6_plus_its_fill_latency(params):
    n, _, l = params
    unit = kawamura(*default_bases(32, n, l, l, source_high=True), n, 16, Fraction(1, 8))
    assert unit.paper_iterations() == TABLE_4_6[params][2]
    assert unit.cycles() == unit.paper_iterations() + unit.latency - l


@pytest.mark.parametrize("params", list(TABLE_4_6), ids=lambda p: f"N={p[0]},TP={p[1]},l={p[2]}")
def test_mixed_radix_iterations_reproduce_table_4_6_plus_its_fill_latency(params):
    n, _, l = params
    source, target = default_bases(32, n, l, l)
    pipelined = mixed_radix(source, target, n, "pipelined")
    iterative = mixed_radix(source, target, n, "iterative")
    assert (pipelined.paper_iterations(), iterative.paper_iterations()) == TABLE_4_6[params][3:]
    assert pipelined.cycles() == n + (l + 1) * (1 + pipelined.multiplier_latency) + 2
    assert iterative.cycles() == n * (l + 1) + iterative.loop_length + 2


@pytest.mark.parametrize("params", list(TABLE_4_6), ids=lambda p: f"N={p[0]},TP={p[1]},l={p[2]}")
def test_one_pass_variant_reaches_the_io_bound_at_table_4_6_sizes(params):
    n, tp, l = params
    source, target, red = default_bases(32, n, l, l, redundant=True)
    unit = sk(source, target, red, n, tp, targets_per_pass=l)
    assert unit.cycles() == unit.io_bound() == n // tp * (2 * l + 1)
    assert unit.arithmetic_units["MM"] == (l + 2) * tp


def test_cosim_engine_is_the_rns_tables_exact_row_with_its_primes_and_tile_registers():
    # tools/cosim_rns.py --prime-n 65536 --tile-reg builds what the table routes
    row = SYNTH_TABLE[-2]
    routed = get_unit(row.unit).build(**row.params)
    built = make_engine("shenoy-kumaresan", 4096, 4, 4, 4, 32, "folded", 4, prime_n=65536,
                        tile_reg=True)
    assert built.plan == routed.plan


@pytest.mark.parametrize("beside, fused", [(False, False), (True, False), (True, True)])
def test_cosim_engine_is_a_side_by_side_row(beside, fused):
    # ... --tile-reg --parallel-targets [--parallel-redundant [--fused-post-sum]] builds what
    # rns-side-by-side routes
    row, = (row for row in SIDE_BY_SIDE_TABLE
            if (row.params.get("parallel_redundant", False),
                row.params.get("fused_post_sum", False)) == (beside, fused))
    routed = get_unit(row.unit).build(**row.params)
    built = make_engine("shenoy-kumaresan", 4096, 4, 4, 4, 32, "folded", 4, prime_n=65536,
                        tile_reg=True, parallel_targets=True, parallel_redundant=beside,
                        fused_post_sum=fused)
    assert built.plan == routed.plan and built.plan.parallel_targets
    assert (built.plan.parallel_redundant, built.plan.fused_post_sum) == (beside, fused)


def test_cosim_engine_refuses_tile_registers_for_the_coefficient_engines():
    with pytest.raises(ValueError, match="tile_reg applies to shenoy-kumaresan and "
                                         "fast-base-conversion, not kawamura"):
        make_engine("kawamura", 256, 2, 2, 1, 32, tile_reg=True)
    with pytest.raises(ValueError, match="parallel_redundant applies to shenoy-kumaresan, "
                                         "not fast-base-conversion"):
        make_engine("fast-base-conversion", 256, 2, 2, 1, 32, parallel_redundant=True)


@pytest.mark.parametrize("flag", ["--tile-reg", "--parallel-targets"])
def test_cosim_tool_refuses_polynomial_flags_for_a_coefficient_engine_in_one_line(flag):
    tool = Path(__file__).resolve().parent.parent / "tools" / "cosim_rns.py"
    run = subprocess.run([sys.executable, str(tool), "--engine", "kawamura", flag],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert f"{flag} applies to shenoy-kumaresan and fast-base-conversion only" in run.stderr
    assert "Traceback" not in run.stderr


def test_cosim_tool_refuses_the_redundant_beside_for_fast_base_conversion_in_one_line():
    tool = Path(__file__).resolve().parent.parent / "tools" / "cosim_rns.py"
    run = subprocess.run([sys.executable, str(tool), "--engine", "fast-base-conversion",
                          "--parallel-redundant"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "--parallel-redundant applies to shenoy-kumaresan only" in run.stderr
    assert "Traceback" not in run.stderr
