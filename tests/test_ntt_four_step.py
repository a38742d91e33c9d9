"""The four-step NTT engine ([Wang13] §IV-C, eqs 7–8) against the golden model, and its unit timing
contract. Its plan and address formulas are tested in test_ntt_schedule.py."""

import pytest
from ntt_helpers import assert_equal, random_poly

from fhe_hw.arith import ModMul
from fhe_hw.model.ntt import dft, ntt4096, wang_huang_root
from fhe_hw.ntt import FourStepNTT
from fhe_hw.ntt.four_step import FourStepNTTPlan
from fhe_hw.ntt.schedule import four_step_cycles
from fhe_hw.params import SOLINAS64, convention_root
from fhe_hw.units import get_unit


def _verilator_or_skip():
    import shutil

    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed (apt-get install verilator)")


@pytest.mark.slow
@pytest.mark.parametrize("inverse, root", [(False, None), (True, None), (False, "openfhe")])
def test_four_step_engine_equals_ntt4096_in_verilator(inverse, root):
    """The four-step datapath (ModMul twiddle stage between ShiftNTT(64, 8) phases, in-place
    write-back) against the model, with the exact cycle count; then with random valid/ready.
    With ``root="openfhe"`` also against the O(n^2) DFT at OpenFHE's root (the least primitive
    4096th root) at sampled indices. Verilator: pysim is too slow for two 64-point shift units
    (about 10 min to build here)."""
    from fhe_hw.sim.cosim import build

    _verilator_or_skip()
    unit = FourStepNTT(4096, inverse=inverse, root=root)
    x = random_poly(SOLINAS64, 4096, "four-step-rtl", inverse)
    beats = [x[i:i + 8] for i in range(0, 4096, 8)]
    model = build(unit, "four-step-ntt", opt="-O1")
    want = ntt4096(x, inverse, unit.omega)
    if root == "openfhe":
        w = _least_primitive_root(4096)
        assert unit.omega == w != FourStepNTT(4096).omega
        idx = [0, 1, 63, 64, 2047, 4095]
        assert [want[j] for j in idx] == dft(x, SOLINAS64, w, idx)
    run = model.run({"i": beats}, {"o": len(beats)})
    assert_equal([v for b in run.outputs["o"] for v in b], want,
                 f"four-step inverse={inverse} root={root}")
    assert run.cycles == unit.cycles() == four_step_cycles(4096, ModMul("solinas64").latency) \
        == get_unit("four-step-ntt").cycles({"n": 4096, "inverse": inverse})
    run = model.run({"i": beats}, {"o": len(beats)}, valid_prob=0.7, ready_prob=0.6)
    assert_equal([v for b in run.outputs["o"] for v in b], want, "four-step with back-pressure")


def _least_primitive_root(order):
    """OpenFHE's rule apart from the convention code: the least odd power of the Wang–Huang
    root (the odd powers are every primitive root of that order)."""
    w = wang_huang_root(order)
    return min(pow(w, j, SOLINAS64) for j in range(1, order, 2))


def test_the_root_is_a_parameter_for_the_roms_and_the_shift_units():
    """Every primitive n-th root ω: the twiddle ROMs hold powers of ω (of ω^-1 inverse) and the
    shift units take ω^(n/points), a power of two. Checked on the built engine: each ROM word
    is a power of ω, and the ω^e that the default engine's ROM holds at the same place becomes
    that power of the new root."""
    w = _least_primitive_root(65536)
    for inverse in (False, True):
        base = FourStepNTT(65536, inverse=inverse)
        unit = FourStepNTT(65536, inverse=inverse, omega=w)
        assert unit.omega == w and base.omega == wang_huang_root(65536)
        assert {pts: u.root for pts, u in unit._units.items()} == \
            {pts: pow(w, 65536 // pts, SOLINAS64) for pts in (16, 64)}
        mul = unit._muls[0]
        log_base = {mul.premultiply(pow(base.omega, -e if inverse else e, SOLINAS64)): e
                    for e in range(65536)}
        roms, new = base.twiddle_roms(), unit.twiddle_roms()
        for ph in roms:
            for lane in (0, 5):
                for word, got in list(zip(roms[ph][lane], new[ph][lane]))[::97]:
                    e = log_base[word]
                    assert got == mul.premultiply(pow(w, -e if inverse else e, SOLINAS64))


def test_root_conventions_and_describe():
    assert FourStepNTT(4096).omega == FourStepNTT(4096, root="wang-huang").omega == \
        convention_root(SOLINAS64, 4096, "wang-huang")
    assert FourStepNTT(4096, root="openfhe").omega == convention_root(SOLINAS64, 4096, "openfhe")
    assert get_unit("four-step-ntt").describe({"root": "generator"}) == \
        {"root of unity": f"omega = {convention_root(SOLINAS64, 4096, 'generator')}"}


@pytest.mark.parametrize("params, match", [
    ({"omega": wang_huang_root(2048)}, "omega must be a primitive 4096-th root of unity"),
    ({"omega": 3}, "omega must be a primitive 4096-th root of unity"),
    ({"omega": SOLINAS64 + wang_huang_root(4096)}, "omega must be a primitive 4096-th root"),
    ({"root": "smallest"}, "root must be one of generator, openfhe, wang-huang"),
    ({"root": "openfhe", "omega": wang_huang_root(4096)}, "root must be left out"),
])
def test_a_bad_root_is_refused_before_hardware_is_built(params, match):
    params = {"n": 4096, **params}
    for fn in (FourStepNTT, FourStepNTTPlan):
        with pytest.raises(ValueError, match=match):
            fn(**params)
    with pytest.raises(ValueError, match=match):
        get_unit("four-step-ntt").latency(params)


def test_properties_report_the_parameters():
    unit = FourStepNTT(65536, inverse=True)
    assert (unit.n, unit.modulus, unit.lanes, unit.inverse, unit.input_beats) == \
        (65536, SOLINAS64, 8, True, 8192)
    assert unit.mul_latency == ModMul("solinas64").latency


# --- timing contract ------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [
    {}, {"inverse": True}, {"n": 65536}, {"n": 65536, "inverse": True, "mult_stages": 2},
    {"tiled": True, "mult_stages": 6}, {"mult_stages": 0}])
def test_contract_cycles_equal_the_built_engine(params):
    unit = get_unit("four-step-ntt")
    built = unit.build(**params)
    assert unit.cycles(params) == built.cycles()
    assert unit.latency(params) is None


def test_contract_default_cycles_are_the_documented_ones():
    unit = get_unit("four-step-ntt")
    assert unit.cycles() == 2105 and unit.cycles({"n": 65536}) == 41038


def test_contract_describes_one_transform_only():
    with pytest.raises(TypeError):
        get_unit("four-step-ntt").cycles({}, count=2)


# --- bad parameters -------------------------------------------------------------------------------

BAD = [({"n": 1024}, ValueError, "n must be 4096 or 65536 for the four-step mode, not 1024"),
       ({"n": 4096.0}, TypeError, "n must be an integer"),
       ({"inverse": 1}, TypeError, "inverse must be a bool"),
       ({"tiled": "yes"}, TypeError, "tiled must be a bool"),
       ({"mult_stages": -1}, ValueError, "mult_stages must be at least 0")]


@pytest.mark.parametrize("params,error,match", BAD + [
    ({"reducer": "special"}, ValueError, "reducer 'special' needs a modulus"),
    ({"reducer": "nope"}, ValueError, "reducer must be one of")])
def test_engine_and_its_pure_functions_reject_bad_parameters(params, error, match):
    params = {"n": 4096, **params}
    for fn in (FourStepNTT, FourStepNTTPlan):
        with pytest.raises(error, match=match):
            fn(**params)


@pytest.mark.parametrize("params,error,match", BAD)
def test_contract_rejects_bad_parameters(params, error, match):
    unit = get_unit("four-step-ntt")
    with pytest.raises(error, match=match):
        unit.cycles(params)
    with pytest.raises(error, match=match):
        unit.latency(params)
