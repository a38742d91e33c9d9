"""The timing contract of the unit registry (fhe_hw.units): every registered unit declares its
latency and cycles as pure functions of its parameters, they build no hardware, they equal the
built component's own ``latency`` and ``cycles()``, and they refuse what the constructor
refuses."""

import pytest
from amaranth.hdl import Elaboratable, Signal

from fhe_hw.arith import ModAdd, ModAddPlan
from fhe_hw.model.bigint import EncryptionSizes
from fhe_hw.units import register, units

UNITS = units()

#: A small Integer-FFT multiplier (kb/2d = 4) for the super-size engines.
MULT = dict(modulus="fermat64", n=8, digit_bits=24, bus_width=24)

#: Configurations besides the CLI defaults ({}), per unit.
CONFIGS = {
    "barrett-reducer": [{"mult_stages": 2, "pipelined": False},
                        {"modulus": "solinas64", "alpha": 70, "beta": -5}],
    "butterfly": [{"modulus": "general32", "scale_up": True, "mult_stages": 3},
                  {"twiddle": 8, "multiplier": "shift"},
                  {"modulus": "general32", "twiddle": 5, "twiddle_up": 7}],
    "mod-add": [{"modulus": "general32", "pipelined": False}],
    "mod-sub": [{"modulus": "fermat32"}],
    "mod-mul": [{"modulus": "general32", "reducer": "barrett", "mult_stages": 2},
                {"modulus": "general32", "word": 16, "tiled": True}],
    "montgomery-reducer": [{"word": 10}, {"pipelined": False}],
    "solinas-reducer": [{"pipelined": False}],
    "special-reducer": [{"modulus_bits": 65}, {"modulus_bits": 17, "pipelined": False}],
    "parallel-ntt": [{"n": 8, "modulus": "general32", "inverse": True, "negacyclic": True},
                     {"n": 16, "modulus": "solinas64", "multiplier": "modmul"}],
    "shift-ntt": [{"n": 16}, {"n": 8, "lanes": 2, "inverse": True}],
    "ntt": [{"n": 64, "butterflies": 2, "negacyclic": True, "inverse": True},
            {"n": 256, "butterflies": 4, "lanes": 4, "tiled": True},
            {"n": 32, "butterflies": 8, "read_stages": 0}],
    "four-step-ntt": [{"inverse": True, "mult_stages": 3}],
    "four-step-stream": [{"n": 32, "inner_n": 4, "lanes": 2, "inverse": True},
                         {"n": 32, "inner_n": 4, "lanes": 2, "inverse": True,
                          "negacyclic": True},
                         {"n": 65536, "lanes": 8, "mult_stages": 3}],
    "carry-resolver": [{"lanes": 3, "digit_bits": 8, "coeff_bits": 20, "beats": 4}],
    "large-int-mul": [{"max_bits": 256, "digit_bits": 8, "inner_n": 4, "lanes": 4, "engines": 2},
                      {"lanes": 8, "engines": 2, "mult_stages": 3}],
    "shenoy-kumaresan": [{"n": 16, "lanes": 2, "architecture": "pipelined"},
                         {"n": 64, "targets_per_pass": 2, "mult_stages": 2}],
    "fast-base-conversion": [{"n": 16, "lanes": 2, "architecture": "pipelined"},
                             {"n": 64, "target_limbs": 3, "targets_per_pass": 2}],
    "rns-poly-ntt": [{"n": 32, "limbs": 2, "butterflies": 2, "inverse": True},
                     {"n": 16, "primes": (16777153, 16777121), "lanes": 1, "karatsuba": True},
                     {"n": 16, "limbs": 2, "skid": True}],
    "rns-poly-product": [{"n": 16, "limbs": 2, "b_evaluated": True, "lanes": 1},
                         {"n": 16, "limbs": 2, "extend_limbs": 2,
                          "extend_architecture": "pipelined"}],
    "rns-poly-extend": [{"n": 16, "limbs": 3, "target_limbs": 2, "lanes": 4,
                         "architecture": "pipelined"},
                        {"n": 16, "primes": (97, 193), "target_primes": (257,), "lanes": 1}],
    "kawamura": [{"n": 16, "source_limbs": 3, "target_limbs": 2, "mult_stages": 2}],
    "mixed-radix": [{"n": 16, "architecture": "pipelined"},
                    {"n": 64, "source_limbs": 3, "target_limbs": 2, "mult_stages": 3}],
    "karatsuba": [{"recursions": 1, "leaf": 3, "coeff_bits": 20, "digit_bits": 8,
                   "modulus": 65537},
                  {"recursions": 2, "digits": 6},
                  {"recursions": 2, "coeff_bits": 12, "digit_bits": 8, "pipelined": False}],
    "karatsuba-relin": [{"recursions": 1, "words": 2, "leaf": 2, "coeff_bits": 16,
                         "word_bits": 8, "digit_bits": 8},
                        {"recursions": 1, "words": 2, "leaf": 2, "coeff_bits": 16,
                         "word_bits": 8, "digit_bits": 8, "pipelined": False}],
    "integer-fft-mul": [dict(MULT, max_bits=960, mult_stages=2)],
    "supersize-barrett": [dict(MULT, gamma=100)],
    "cmnt-encrypt": [{"schedule": "factored"},
                     dict(MULT, group=EncryptionSizes(10, 12, 80, 3))],
    "cnt-encrypt": [dict(MULT, group=EncryptionSizes(30, 30, 90, 4))],
    "transform-encrypt": [{"scheme": "cnt", "group": EncryptionSizes(40, 40, 300, 3),
                           "inner_units": 1},
                          {"group": "toy", "lanes": 16, "inner_n": 64}],
}

#: Run descriptions the contract's cycles() and the component's cycles() both take.
RUNS = {"parallel-ntt": {"transforms": 3}, "shift-ntt": {"transforms": 3},
        "four-step-stream": {"transforms": 3},
        "karatsuba": {"products": 3}, "karatsuba-relin": {"groups": 2},
        "integer-fft-mul": {"x_words": 5, "y_words": 9}, "transform-encrypt": {"program": 0}}

#: Refused parameters: the contract must raise what the constructor raises.
REFUSED = [
    ("rns-poly-extend", {"n": 16, "primes": (97, 193)}, ValueError),
    ("rns-poly-extend", {"n": 16, "lanes": 32}, ValueError),
    ("rns-poly-product", {"n": 16, "primes": (97, 193), "extend_limbs": 1}, ValueError),
    ("mod-mul", {"reducer": "nope"}, ValueError),
    ("mod-add", {"pipelined": "maybe"}, TypeError),
    ("special-reducer", {"modulus_bits": 2}, ValueError),
    ("montgomery-reducer", {"word": 21}, ValueError),
    ("butterfly", {"twiddle_up": 3}, ValueError),
    ("butterfly", {"modulus": "general32", "twiddle": 3, "multiplier": "shift"}, ValueError),
    ("parallel-ntt", {"n": 48}, ValueError),
    ("shift-ntt", {"n": 12}, ValueError),
    ("four-step-stream", {"n": 4096 * 3}, ValueError),
    ("four-step-stream", {"lanes": 128}, ValueError),
    ("shenoy-kumaresan", {"architecture": "pipelined", "targets_per_pass": 2}, ValueError),
    ("fast-base-conversion", {"lanes": 2048}, ValueError),
    ("kawamura", {"delta": 2}, ValueError),
    ("mixed-radix", {"architecture": "serial"}, ValueError),
    ("karatsuba", {"digits": 2}, ValueError),
    ("karatsuba-relin", {"words": 0}, ValueError),
    ("karatsuba", {"pipelined": 1}, TypeError),
    ("karatsuba-relin", {"pipelined": "yes"}, TypeError),
    ("integer-fft-mul", {"addr_width": 3}, ValueError),
    ("supersize-barrett", {"gamma": 8}, ValueError),
    ("cmnt-encrypt", {"schedule": "fast"}, ValueError),
    ("cnt-encrypt", {"group": "huge"}, ValueError),
    ("transform-encrypt", {"scheme": "rsa"}, ValueError),
    ("transform-encrypt", {"lanes": 8}, ValueError),
    ("transform-encrypt", {"inner_units": 3}, ValueError),
]


def forbid_hardware(monkeypatch):
    """Fail on the construction of any Signal or Elaboratable (Component, Module, memory...)."""
    def refuse(kind):
        def construct(*args, **kwargs):
            raise AssertionError(f"hardware was built: a {kind}")
        return construct
    monkeypatch.setattr(Signal, "__init__", refuse("Signal"))
    monkeypatch.setattr(Elaboratable, "__new__", refuse("Elaboratable"))


@pytest.fixture
def no_hardware(monkeypatch):
    forbid_hardware(monkeypatch)


def test_no_hardware_fixture_catches_signals_and_components(no_hardware):
    with pytest.raises(AssertionError, match="Signal"):
        Signal(8)
    with pytest.raises(AssertionError, match="Elaboratable"):
        ModAdd("general32")


@pytest.mark.parametrize("name", sorted(UNITS))
def test_every_unit_declares_latency_and_cycles_at_its_defaults_without_hardware(
        name, no_hardware):
    unit = UNITS[name]
    latency = unit.latency()
    assert latency is None or (isinstance(latency, int) and latency >= 0)
    cycles = unit.cycles()
    assert isinstance(cycles, int) and cycles >= 1


def test_every_unit_is_configured_here():
    assert set(UNITS) == set(CONFIGS)


CASES = [pytest.param(name, params, id=f"{name}-{n}")
         for name, configs in sorted(CONFIGS.items())
         for n, params in enumerate([{}] + configs)]


@pytest.mark.parametrize("name,params", CASES)
def test_contract_equals_the_built_components_latency_and_cycles(name, params):
    unit = UNITS[name]
    latency, cycles = unit.latency(params), unit.cycles(params)
    component = unit.build(**params)
    assert latency == getattr(component, "latency", None)
    own_cycles = getattr(component, "cycles", None)
    if name == "integer-fft-mul":
        assert cycles == own_cycles(component.max_words, component.max_words)
    elif own_cycles is not None:
        assert cycles == own_cycles()
    else:                        # a fixed-latency unit: one result per cycle
        assert cycles == 1 + latency
        assert unit.cycles(params, count=4) == 4 + latency
    if name in RUNS:
        assert unit.cycles(params, **RUNS[name]) == own_cycles(**RUNS[name])


@pytest.mark.parametrize("name,params,error", REFUSED,
                         ids=[f"{n}-{'-'.join(p)}" for n, p, _ in REFUSED])
def test_contract_refuses_what_the_constructor_refuses_and_build_checks_it_first(
        name, params, error, monkeypatch):
    unit = UNITS[name]
    with pytest.raises(error) as refused:
        unit.factory(**unit.resolve(params))
    for check in (lambda: unit.latency(params), lambda: unit.cycles(params)):
        with pytest.raises(error) as contract:
            check()
        assert str(contract.value) == str(refused.value)
    forbid_hardware(monkeypatch)     # build refuses through the contract, before the factory
    with pytest.raises(error):
        unit.build(**params)


def test_fixed_latency_units_take_only_count():
    with pytest.raises(TypeError, match="only count"):
        UNITS["mod-add"].cycles(transforms=2)


def test_register_requires_a_plan_and_a_component_class():
    with pytest.raises(TypeError, match="plan must be a Plan class"):
        register("contract-test-unit", plan=None, component=ModAdd, description="no plan")
    with pytest.raises(TypeError, match="component must be a class"):
        register("contract-test-unit", plan=ModAddPlan, component=lambda plan: None,
                 description="a function")
    with pytest.raises(ValueError, match="unique"):
        register("mod-add", plan=ModAddPlan, component=ModAdd, description="again")
    assert "contract-test-unit" not in units()


def test_verilog_store_serves_a_registered_units_own_component_and_nothing_else():
    """Within verilog_store, to_verilog takes the text of a registered unit's own Component
    from the store under verilog_key (the plan's repr names every parameter); anything else is
    converted, and the store in force before comes back after the block."""
    from fhe_hw.arith import ModSub
    from fhe_hw.units import to_verilog, verilog_key, verilog_store

    plan, asked = ModAddPlan("general32", pipelined=False), []

    def store(text):
        def get(key, make):
            asked.append(key)
            return text
        return get
    with verilog_store(store("// outer\n")):
        with verilog_store(store("// inner\n")):
            assert to_verilog(ModAdd(plan), "mod-add", header=["h"]) == "// h\n// inner\n"
            assert to_verilog(ModSub(plan), "mod-sub") == "// inner\n"
            for component, name in ((ModAdd(plan), "mod-sub"), (ModAdd(plan), "no-such-unit")):
                assert "module fhe_hw_" in to_verilog(component, name)
        assert to_verilog(ModAdd(plan), "mod-add") == "// outer\n"
    assert asked == [("to_verilog", "mod-add", "ModAdd", repr(plan)),
                     ("to_verilog", "mod-sub", "ModSub", repr(plan)),
                     ("to_verilog", "mod-add", "ModAdd", repr(plan))]
    assert verilog_key(ModAdd(plan), "mod-add", platform=object()) is None
