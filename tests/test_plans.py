"""One plan per unit (fhe_hw.plan): every registered unit is a (plan, component) pair, every
command-line option comes from a plan field, plans validate themselves in one message style and
their timing is pure."""

import dataclasses

import pytest
from test_units_contract import CONFIGS, RUNS, forbid_hardware

from fhe_hw.arith.modadd_dyn import DynamicModAdd, DynamicModAddPlan, DynamicModSub
from fhe_hw.arith.montgomery_dyn import DynamicModMul, DynamicModMulPlan
from fhe_hw.component import Component
from fhe_hw.plan import Plan
from fhe_hw.units import parse_bool, plan_options, units

UNITS = units()

@pytest.mark.parametrize("name", sorted(UNITS))
def test_every_unit_is_a_plan_component_pair(name):
    unit = UNITS[name]
    assert isinstance(unit.plan, type) and issubclass(unit.plan, Plan)
    assert dataclasses.is_dataclass(unit.plan) and unit.plan.__dataclass_params__.frozen
    assert isinstance(unit.factory, type) and issubclass(unit.factory, Component)


@pytest.mark.parametrize("name", sorted(UNITS))
def test_every_option_of_a_unit_comes_from_a_plan_field(name):
    unit = UNITS[name]
    fields = {f.name: f for f in dataclasses.fields(unit.plan) if "help" in f.metadata}
    assert unit.options == plan_options(unit.plan)
    assert [opt.dest for opt in unit.options] == list(fields)
    for opt in unit.options:
        f = fields[opt.dest]
        assert opt.name == f.name.replace("_", "-")
        assert opt.help == f.metadata["help"]
        cli_default = f.metadata["cli_default"]
        assert opt.default == (cli_default if cli_default is not dataclasses.MISSING
                               else None if f.default is dataclasses.MISSING else f.default)
        if f.metadata["parse"] is not None:
            assert opt.type is f.metadata["parse"]
        elif f.type is bool:
            assert opt.type is parse_bool


@pytest.mark.parametrize("name,params", [(n, p) for n in sorted(UNITS)
                                         for p in [{}] + CONFIGS[n]])
def test_component_takes_its_plan_or_the_plans_arguments(name, params):
    unit = UNITS[name]
    plan = unit.make_plan(params)
    by_plan, by_args = unit.factory(plan), unit.factory(**unit.resolve(params))
    assert by_plan.plan is plan and by_args.plan == plan
    assert plan.latency == unit.latency(params)
    if plan.latency is not None:        # a stream engine's component has no latency
        assert by_plan.latency == by_args.latency == plan.latency
    if plan.latency is None or name in RUNS:    # a cycles() of the component's own
        run = RUNS.get(name, {})
        assert by_plan.cycles(**run) == by_args.cycles(**run) == plan.cycles(**run)
    assert unit.build(**params).plan == plan


@pytest.mark.parametrize("name,params", [(n, p) for n in sorted(UNITS)
                                         for p in [{}] + CONFIGS[n]])
def test_plan_timing_is_pure_and_builds_no_hardware(name, params, monkeypatch):
    forbid_hardware(monkeypatch)
    unit = UNITS[name]
    plan = unit.make_plan(params)
    run = RUNS.get(name, {})
    assert plan.cycles() == unit.cycles(params)
    if plan.latency is None:                    # a stream engine: its own run keywords
        assert plan.cycles() >= 1 and plan.cycles(**run) >= 1
    elif "transforms" in run:                   # a fixed-latency transform: transforms=
        assert plan.cycles(**run) == run["transforms"] + plan.latency
    elif type(plan).cycles is Plan.cycles:      # a fixed-latency unit: count + latency
        assert plan.cycles() == 1 + plan.latency
        assert plan.cycles(count=5) == 5 + plan.latency
    else:                                       # its own run keywords (products=, groups=)
        assert plan.cycles() >= 1 and plan.cycles(**run) >= 1
    assert plan.describe() == unit.describe(params)
    first = next(iter(plan.params()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(plan, first, getattr(plan, first))


@pytest.mark.parametrize("name", sorted(UNITS))
def test_plan_refuses_bad_fields_naming_them(name):
    unit = UNITS[name]
    base = unit.resolve()
    for f in dataclasses.fields(unit.plan):
        if "help" not in f.metadata:
            continue
        kind = f.type
        if kind is bool:
            with pytest.raises(TypeError, match=f"^{f.name} must be a bool, not 1$"):
                unit.plan(**{**base, f.name: 1})
        low, high = f.metadata["range"] or (None, None)
        if low is not None:
            with pytest.raises(ValueError, match=f"^{f.name} must be at least {low}, "):
                unit.plan(**{**base, f.name: low - 1})
        if high is not None:
            with pytest.raises(ValueError, match=f"^{f.name} must be at most {high}, "):
                unit.plan(**{**base, f.name: high + 1})


def test_cycles_takes_only_count():
    plan = UNITS["mod-mul"].make_plan()
    with pytest.raises(TypeError, match="takes only count, not transforms"):
        plan.cycles(transforms=2)
    with pytest.raises(ValueError, match="count must be at least 1, not 0"):
        plan.cycles(count=0)


@pytest.mark.parametrize("component,plan_cls,args,kw", [
    (DynamicModAdd, DynamicModAddPlan, (32,), {"pipelined": False}),
    (DynamicModSub, DynamicModAddPlan, (30,), {}),
    (DynamicModMul, DynamicModMulPlan, ([4293591041, 4293918721, 4293918721], 13),
     {"mult_stages": 3, "deep": False})])
def test_dynamic_units_take_their_plan_or_its_arguments(component, plan_cls, args, kw):
    plan = plan_cls(*args, **kw)
    assert component(plan).plan is plan and component(*args, **kw).plan == plan
    assert component(plan).latency == plan.latency


def test_dynamic_mod_mul_plan_stores_what_it_resolved():
    plan = DynamicModMulPlan([4293918721, 4293591041, 4293918721])
    assert plan.moduli == (4293591041, 4293918721)
    # 4293591041 - 1 = 2^16 * 65515 and 4293918721 - 1 = 2^20 * 4095: w = 16, ν = ⌈32/16⌉.
    assert (plan.word, plan.width, plan.nu) == (16, 32, 2)
    with pytest.raises(TypeError, match="^deep must be a bool, not 1$"):
        DynamicModMulPlan(plan.moduli, deep=1)
