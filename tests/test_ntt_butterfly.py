"""The unified butterfly ([Cao14] Fig. 2) and the Gentleman–Sande butterfly against the model's
definitions."""

import pytest
from helpers import check_unit, rng_for

from fhe_hw.arith import ModMulPlan
from fhe_hw.model.ntt import butterfly, gs_butterfly
from fhe_hw.ntt import Butterfly, ButterflyPlan
from fhe_hw.params import MODULI, ntt_primes

MODULI_ALL = [*MODULI, ntt_primes(60, 1 << 16, 1)[0]]


def vectors(unit, *key, count=1000):
    p, rng = unit.modulus, rng_for("butterfly", *key)
    raw = [(p - 1, p - 1, p - 1, p - 1), (0, 0, 0, 0), (1, p - 1, 1, 1)] + \
          [tuple(rng.randrange(p) for _ in range(4)) for _ in range(count)]
    ins, expected = [], []
    for up, down, w_down, w_up in raw:
        v = {"up": up, "down": down, "w_down": unit.premultiply(w_down)}
        if unit.scale_up:
            v["w_up"] = unit.premultiply(w_up)
        ins.append(v)
        form = gs_butterfly if unit.plan.form == "gs" else butterfly
        expected.append(dict(zip(("up", "down"), form(up, down, w_up if unit.scale_up else None,
                                                       w_down, p))))
    return ins, expected


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
@pytest.mark.parametrize("scale_up", [False, True])
def test_butterfly_computes_up_plus_minus_down_times_twiddle(modulus, scale_up):
    unit = Butterfly(modulus, scale_up=scale_up)
    ins, expected = vectors(unit, modulus, scale_up)
    check_unit(unit, ins, expected, label=f"Butterfly({modulus}, scale_up={scale_up})")


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
@pytest.mark.parametrize("scale_up", [False, True])
def test_gentleman_sande_butterfly_multiplies_the_difference_a_cycle_after_the_sum(modulus,
                                                                                  scale_up):
    unit = Butterfly(modulus, scale_up=scale_up, form="gs")
    assert unit.latency == unit._mul.latency + 1 == Butterfly(modulus).latency
    ins, expected = vectors(unit, modulus, "gs", scale_up, count=300)
    check_unit(unit, ins, expected, label=f"Butterfly({modulus}, form=gs, scale_up={scale_up})")


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
def test_tiled_butterfly_computes_the_same_with_the_same_latency(modulus):
    unit = Butterfly(modulus, scale_up=True, tiled=True)
    assert unit.latency == Butterfly(modulus, scale_up=True).latency
    ins, expected = vectors(unit, modulus, "tiled", count=300)
    check_unit(unit, ins, expected, label=f"Butterfly({modulus}, tiled=True)")


def test_butterfly_latency_is_the_multiplier_plus_the_adder():
    unit = Butterfly("solinas64", mult_stages=2)
    # 2 multiplier registers, the deep Solinas reducer (4), the adder (1).
    assert unit.latency == unit._mul.latency + 1 == 2 + 4 + 1
    # With the up-multiplier, x_up ∓ p takes a register after the products (fast_add).
    unit = Butterfly("solinas64", mult_stages=2, scale_up=True)
    assert unit.latency == unit._mul.latency + 2 == ButterflyPlan(
        "solinas64", mult_stages=2, scale_up=True).latency


@pytest.mark.parametrize("modulus", MODULI_ALL, ids=str)
@pytest.mark.parametrize("scale_up", [False, True])
def test_slow_add_computes_the_same_one_cycle_earlier_with_the_up_multiplier(modulus, scale_up):
    unit = Butterfly(modulus, scale_up=scale_up, fast_add=False)
    fast = Butterfly(modulus, scale_up=scale_up)
    assert not unit.fast_add and fast.fast_add
    assert unit.latency == fast.latency - scale_up == ButterflyPlan(
        modulus, scale_up=scale_up, fast_add=False).latency
    ins, expected = vectors(unit, modulus, "slow add", scale_up, count=300)
    check_unit(unit, ins, expected, label=f"Butterfly({modulus}, fast_add=False)")


@pytest.mark.parametrize("form, fast_add, twiddle", [
    ("ct", True, None), ("ct", False, None), ("gs", True, None), ("ct", True, 3)])
def test_ram_delays_compute_the_same_in_the_same_latency(form, fast_add, twiddle):
    """With ``ram_delays`` the delay line beside the multiplier is a memory: the same results
    as the model's, with bubbles, in the registers' latency (run-time twiddles at 60 bits as
    the 60-bit engines take them, and a constant twiddle)."""
    q = ntt_primes(60, 1 << 16, 1)[0]
    options = {"form": form, "fast_add": fast_add, "twiddle": twiddle}
    if twiddle is None:
        options.update(tiled=True, karatsuba=True, fabric_rounds=True)
    unit = Butterfly(q, ram_delays=True, **options)
    assert unit.latency == Butterfly(q, **options).latency > 5
    if twiddle is None:
        ins, expected = vectors(unit, "ram", form, fast_add, count=300)
    else:
        rng = rng_for("butterfly", "ram", "constant")
        ins = [{"up": rng.randrange(q), "down": rng.randrange(q)} for _ in range(300)]
        expected = [dict(zip(("up", "down"), butterfly(x["up"], x["down"], None, twiddle, q)))
                    for x in ins]
    check_unit(unit, ins, expected, label=f"Butterfly(ram_delays=True, {options})")


def test_ram_delays_are_refused_with_the_up_multiplier():
    with pytest.raises(ValueError, match="ram_delays needs a butterfly without the "
                       "up-multiplier"):
        ButterflyPlan("solinas64", scale_up=True, ram_delays=True)
    with pytest.raises(ValueError, match="ram_delays needs a butterfly without"):
        ButterflyPlan("fermat32", twiddle=2, twiddle_up=2, ram_delays=True)


def test_butterfly_rejects_bad_parameters():
    with pytest.raises(TypeError, match="scale_up must be a bool"):
        Butterfly("solinas64", scale_up="yes")
    with pytest.raises(TypeError, match="tiled must be a bool"):
        Butterfly("solinas64", tiled=1)
    with pytest.raises(TypeError, match="fast_add must be a bool"):
        ButterflyPlan("solinas64", fast_add=None)
    with pytest.raises(ValueError, match="modulus must be odd"):
        Butterfly(2**32)


def test_narrow_tiles_reach_the_modmul_and_only_its_latency_changes():
    unit = Butterfly("solinas64", tile=9)
    # the butterfly adds its adder's cycle to the ModMul of the same tile width
    assert unit.latency == ModMulPlan("solinas64", tile=9).latency + 1
    assert unit.latency == Butterfly("solinas64").latency + 2   # 64 tiles: two more levels
    ins, expected = vectors(unit, "solinas64", "tile9", count=200)
    check_unit(unit, ins, expected, label="Butterfly(solinas64, tile=9)")


def test_tile_is_refused_with_a_constant_twiddle():
    with pytest.raises(ValueError, match="tile applies to run-time twiddles only"):
        Butterfly("fermat32", twiddle=2, tile=9)


def test_karatsuba_reaches_the_modmul_and_only_its_latency_changes():
    unit = Butterfly("solinas64", karatsuba=True)
    assert unit.latency == ModMulPlan("solinas64", karatsuba=True).latency + 1
    assert unit.latency == Butterfly("solinas64").latency + 3
    ins, expected = vectors(unit, "solinas64", "karatsuba", count=200)
    check_unit(unit, ins, expected, label="Butterfly(solinas64, karatsuba=True)")


@pytest.mark.parametrize("option", ["karatsuba", "tile_reg"])
def test_run_time_multiplier_options_are_refused_with_a_constant_twiddle(option):
    with pytest.raises(ValueError, match=f"{option} applies to run-time twiddles only"):
        Butterfly("fermat32", twiddle=2, **{option: True})


@pytest.mark.parametrize("form, scale_up", [("ct", False), ("gs", False), ("gs", True)])
def test_run_time_moduli_take_the_modulus_with_each_butterfly(form, scale_up):
    """With ``moduli`` each butterfly reduces by its own ``q``, one of the set, in one
    latency: the vectors cycle through the primes (edges and random words of each)."""
    primes = ntt_primes(30, 1 << 16, 3)
    unit = Butterfly(primes[0], form=form, scale_up=scale_up, moduli=primes)
    assert unit.latency == unit._mul.latency + 1
    rng = rng_for("butterfly-moduli", form, scale_up)
    ins, expected = [], []
    for k in range(300):
        p = primes[k % 3]
        up, down, w_down, w_up = (p - 1,) * 4 if k < 3 else \
            tuple(rng.randrange(p) for _ in range(4))
        v = {"up": up, "down": down, "w_down": unit.premultiply(w_down, p), "q": p}
        if scale_up:
            v["w_up"] = unit.premultiply(w_up, p)
        ins.append(v)
        model = gs_butterfly if form == "gs" else butterfly
        expected.append(dict(zip(("up", "down"),
                                 model(up, down, w_up if scale_up else None, w_down, p))))
    check_unit(unit, ins, expected, label=f"Butterfly(moduli, form={form})")


@pytest.mark.parametrize("kw, message", [
    ({"moduli": 97}, "moduli must be a sequence"),
    ({"moduli": (1073479681, 1073479681.0)}, "moduli must be an integer"),
    ({"moduli": (1073479681, 8380417)}, "moduli must include modulus .* and have its 30 bits"),
    ({"moduli": (1073479681,), "twiddle": 3}, "moduli needs run-time twiddles"),
    ({"moduli": (1073479681,), "karatsuba": True}, "moduli does not apply with karatsuba"),
    ({"moduli": (1073479681,), "reducer": "barrett"}, "moduli needs Montgomery multipliers"),
    ({"moduli": (1073479681,), "scale_up": True}, "the Fig. 2 butterfly with scale_up"),
])
def test_run_time_moduli_refuse_what_they_do_not_support(kw, message):
    with pytest.raises((ValueError, TypeError), match=message):
        ButterflyPlan(1073479681, **kw)
