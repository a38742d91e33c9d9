"""The link core's parameters (fhe_hw.link.plan.LinkPlan): bad values are refused by name before
any hardware is built."""

import dataclasses

import pytest
from amaranth import unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

from fhe_hw.arith import BarrettReducer
from fhe_hw.component import Component
from fhe_hw.link import LinkCore
from fhe_hw.link.plan import LinkPlan


class _Ports(Component):
    """A unit with only the given stream members (never elaborated)."""

    def __init__(self, members):
        super().__init__(members)

    def elaborate(self, platform):
        raise AssertionError("a refused unit must not be elaborated")


def _byte_stream():
    return stream.Signature(unsigned(8))


@pytest.mark.parametrize("kw,error,match", [
    ({"depth": 0}, ValueError, r"depth must be in 1\.\.65535, not 0"),
    ({"depth": 65536}, ValueError, r"depth must be in 1\.\.65535, not 65536"),
    ({"depth": 16.0}, TypeError, r"depth must be an integer, not 16\.0"),
    ({"max_frame": 15}, ValueError, r"max_frame must be in 16\.\.4096, not 15"),
    ({"max_frame": 4097}, ValueError, r"max_frame must be in 16\.\.4096, not 4097"),
    ({"max_frame": True}, TypeError, r"max_frame must be an integer, not True"),
])
def test_bad_depth_or_max_frame_is_refused_by_name(kw, error, match):
    with pytest.raises(error, match=match):
        LinkCore(BarrettReducer("general32"), b"{}", **kw)


def test_descriptor_must_be_non_empty_bytes():
    with pytest.raises(ValueError, match="descriptor must not be empty"):
        LinkCore(BarrettReducer("general32"), b"")
    with pytest.raises(TypeError, match="descriptor must be bytes, not str"):
        LinkCore(BarrettReducer("general32"), "{}")


@pytest.mark.parametrize("members,names", [
    ({"i": In(_byte_stream())}, ["i"]),
    ({"o": Out(_byte_stream())}, ["o"]),
    ({"x": In(1)}, []),
])
def test_unit_without_input_and_output_streams_is_refused(members, names):
    with pytest.raises(ValueError, match=rf"unit must have input and output streams, not "
                                         rf"{names!r}".replace("[", r"\[").replace("]", r"\]")):
        LinkCore(_Ports(members), b"{}")


def test_plan_lists_memories_inputs_first_with_their_word_bytes():
    unit = _Ports({"o_s": Out(stream.Signature(unsigned(21))), "i_a": In(_byte_stream()),
                   "i_b": In(stream.Signature(unsigned(20), always_ready=True))})
    plan = LinkPlan.of(unit, b"{}", depth=8, max_frame=32)
    assert [name for name, _ in plan.mems] == ["i_a", "i_b", "o_s"]
    assert (plan.bits, plan.word_bytes, plan.acc_bytes) == ((8, 20, 21), (1, 3, 3), 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.depth = 9
    with pytest.raises(TypeError, match="inputs must be a tuple of"):
        LinkPlan([("i", _byte_stream())], plan.outputs, b"{}")
