"""One registered DSP tile product: an unsigned product of at most 18 × 18 bits whose registers
are those of the DSP block where the platform has one.

Yosys's ``synth_ecp5`` maps a multiplication to a combinational MULT18X18D and leaves the
registers around it in the fabric (TRELLIS_FF): the routing into and out of the DSP column then
adds to the multiplier's 3.9 ns, and a registered 17 × 17 product alone stops near 145 MHz on
the LFE5U-85F. With the operands and the product held in the MULT18X18D's own input and output
registers the DSP is no longer on a critical path. :class:`TileProduct` therefore instantiates
the primitive, registers set, when elaborated for an ECP5 (:func:`is_ecp5`: an amaranth-boards
ECP5 platform, or the out-of-context flow of :mod:`fhe_hw.flow.synth`), and describes the same
registers and product in plain Amaranth everywhere else (simulation, Verilog for other tools, the
iCE40, whose Yosys pass ``ice40_dsp`` can pack such registers into SB_MAC16). Both forms reset
their registers to 0 with the domain's synchronous reset (none in a reset-less domain, as on
the board tops), so they behave alike from reset. Amaranth's ``EnableInserter`` does not reach
an ``Instance``: a tile inside a clock-enabled module takes that enable as ``enable``.
"""

from amaranth import ClockSignal, Const, Instance, Module, ResetSignal, Signal
from amaranth.hdl import Value
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..params import require_int

__all__ = ["TileProduct", "tile_product", "is_ecp5", "DSP_WIDTH"]

#: Operand width of the ECP5 MULT18X18D (unsigned operands use all 18 bits).
DSP_WIDTH = 18
#: Narrowest operand Yosys maps to a DSP block (``mul2dsp`` ``DSP_*_MINWIDTH`` of synth_ecp5);
#: narrower products stay in the fabric, in either form.
_DSP_MIN_WIDTH = 2


def is_ecp5(platform):
    """Whether ``platform`` (what ``elaborate`` receives) is a Lattice ECP5: an Amaranth
    ``LatticePlatform`` of family ``"ecp5"`` or any object with ``family == "ecp5"``."""
    return getattr(platform, "family", None) == "ecp5"


class TileProduct(Component):
    """``p = a·b`` for unsigned ``a`` and ``b`` of at most 18 bits each, registered.

    On an ECP5 the unit is one MULT18X18D with ``REG_INPUTA_CLK``/``REG_INPUTB_CLK`` (with
    ``operand_reg``) and ``REG_OUTPUT_CLK`` set to ``CLK0``, ``RESETMODE="SYNC"``, the
    domain's reset (0 if it has none) on ``RST0`` and ``enable`` on ``CE0``, unless a
    constant operand is 0 or a power of two or an operand is narrower than 2 bits (no DSP is
    needed then: the fabric form is used). :func:`tile_product` builds one in a module and
    connects it.

    Parameters
    ----------
    a, b : int or Const
        Each operand: its width (the operand is then an input port) or a constant
        (:class:`~amaranth.hdl.Const`, no port: it needs no register, and its value decides
        whether a DSP is used).
    operand_reg : bool
        Register the operands first (latency 2: the DSP's input and output registers), else
        only the product (latency 1: the output register).

    Attributes
    ----------
    a, b : In(width)
        The operands that are not constants.
    enable : In(1), init 1
        The registers load only in cycles where it is 1 (the reset still clears them); the
        latency counts such cycles.
    p : Out(width of a + width of b)
        The product.

    Raises ``ValueError`` for an operand wider than 18 bits.
    """

    def __init__(self, a, b, *, operand_reg):
        self._constants, widths, ports = {}, {}, {}
        for name, value in (("a", a), ("b", b)):
            constant = value if isinstance(value, Const) else None
            width = len(value) if constant is not None else require_int(name, value, minimum=0)
            if width > DSP_WIDTH:
                raise ValueError(f"{name} must be at most {DSP_WIDTH} bits wide, not {width}")
            self._constants[name], widths[name] = constant, width
            if constant is None:
                ports[name] = In(width)
        self._widths = widths
        self.operand_reg = bool(operand_reg)
        super().__init__(ports | {"enable": In(1, init=1), "p": Out(widths["a"] + widths["b"])})

    @property
    def latency(self):
        """Clock cycles from the operands to ``p``."""
        return 1 + self.operand_reg

    def uses_dsp(self):
        """Whether the ECP5 form is one MULT18X18D (see the class docstring)."""
        for name, constant in self._constants.items():
            power_of_two = constant is not None and constant.value & (constant.value - 1) == 0
            if self._widths[name] < _DSP_MIN_WIDTH or power_of_two:
                return False
        return True

    def _operands(self):
        """The operands: the constants, or the ports."""
        return [getattr(self, name) if constant is None else constant
                for name, constant in self._constants.items()]

    def elaborate(self, platform):
        m = Module()
        if is_ecp5(platform) and self.uses_dsp():
            self._mult18x18d(m)
            return m
        a, b = self._operands()
        with m.If(self.enable):
            if self.operand_reg:
                # A constant needs no register: its product is the same from the first cycle on.
                a, b = (v if self._constants[name] is not None else _register(m, v, name)
                        for v, name in ((a, "a"), (b, "b")))
            m.d.sync += self.p.eq(a * b)
        return m

    def _mult18x18d(self, m):
        regs = "CLK0" if self.operand_reg else "NONE"
        bits = {}
        for port, value in zip("AB", self._operands()):
            for k in range(DSP_WIDTH):
                bits[f"i_{port}{k}"] = value[k] if k < len(value) else Const(0)
        for k in range(DSP_WIDTH):
            bits[f"i_C{k}"] = Const(0)
        product = Signal(2 * DSP_WIDTH)
        for k in range(2 * DSP_WIDTH):
            bits[f"o_P{k}"] = product[k]
        m.submodules.dsp = Instance(
            "MULT18X18D",
            p_REG_INPUTA_CLK=regs, p_REG_INPUTB_CLK=regs, p_REG_PIPELINE_CLK="NONE",
            p_REG_OUTPUT_CLK="CLK0", p_RESETMODE="SYNC", p_GSR="DISABLED",
            i_CLK0=ClockSignal(), i_CE0=self.enable, i_RST0=ResetSignal(allow_reset_less=True),
            i_SIGNEDA=Const(0), i_SIGNEDB=Const(0), i_SOURCEA=Const(0), i_SOURCEB=Const(0),
            **bits)
        m.d.comb += self.p.eq(product[:len(self.p)])


def tile_product(m, a, b, *, operand_reg, enable=1):
    """A :class:`TileProduct` of the values ``a`` and ``b`` of module ``m`` (a constant as a
    :class:`~amaranth.hdl.Const`), added to ``m`` with its operands and ``enable`` (a one-bit
    value, default always) connected; returns it (its product is ``p``). Raises ``ValueError``
    for an operand wider than 18 bits or a wider ``enable``."""
    enable = Value.cast(enable)
    if len(enable) != 1:
        raise ValueError(f"enable must be one bit wide, not {len(enable)}")
    a, b = Value.cast(a), Value.cast(b)
    tile = TileProduct(*(v if isinstance(v, Const) else len(v) for v in (a, b)),
                       operand_reg=operand_reg)
    m.submodules += tile
    m.d.comb += [getattr(tile, name).eq(v) for name, v in (("a", a), ("b", b))
                 if not isinstance(v, Const)]
    m.d.comb += tile.enable.eq(enable)
    return tile


def _register(m, value, name):
    reg = Signal(len(value), name=name)
    m.d.sync += reg.eq(value)
    return reg
