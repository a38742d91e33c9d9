"""The memory of the Sum / Post-Sum engine (:class:`~fhe_hw.rns.shenoy_kumaresan.CRTBaseExtension`):
a bank of [Kir25] Fig. 3.7, N/TP rows of TP lanes."""

from amaranth import Module
from amaranth.lib.wiring import In, Out

from ..component import Component
from ..lib.bram import RegisteredRAM

__all__ = ["AccumulatorBank", "READ_LATENCY"]

#: Cycles from a bank read address to its data: the block RAM's registered read port, its
#: output register (:class:`~fhe_hw.lib.bram.RegisteredRAM`) and a fabric register, so
#: that neither the block RAM's clock-to-out (about 6 ns on the ECP5 DP16KD without its output
#: register) nor the wire from the block-RAM row to the logic (3 ns and more) shares a clock
#: period with adder logic.
READ_LATENCY = 3


class AccumulatorBank(Component):
    """A bank of [Kir25] Fig. 3.7: ``rows`` words of ``width`` bits (N/TP rows of TP lanes), a
    :class:`~fhe_hw.lib.bram.RegisteredRAM` (on the ECP5 the DP16KD's own output register) and
    a fabric register behind it, which the placer puts between the block RAM and the logic.

    Parameters: ``width`` (bits of a word), ``rows`` (words).

    Ports: ``w_en``, ``w_addr``, ``w_data`` (in) write ``w_data`` to row ``w_addr`` at the end
    of a cycle where ``w_en`` is 1; ``r_addr`` (in) → ``r_data`` (out) the row's word
    :data:`READ_LATENCY` cycles later, the old word when the read meets a write of its row;
    ``ram_data`` (out) the word a cycle before ``r_data``, the RAM's output register (for a
    fabric register of a user's own). ``r_data`` is 0 from reset until the first read arrives.
    """

    def __init__(self, width, rows):
        self._width, self._rows = width, rows
        super().__init__({"w_en": In(1), "w_addr": In(range(rows)), "w_data": In(width),
                          "r_addr": In(range(rows)), "r_data": Out(width),
                          "ram_data": Out(width)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.ram = ram = RegisteredRAM(self._width, self._rows, output_reg=True)
        if ram.latency + 1 != READ_LATENCY:
            raise RuntimeError(f"the RAM's read latency {ram.latency} plus the fabric register "
                               f"is not READ_LATENCY = {READ_LATENCY}")
        m.d.comb += [ram.w_en.eq(self.w_en), ram.w_addr.eq(self.w_addr),
                     ram.w_data.eq(self.w_data), ram.r_addr.eq(self.r_addr),
                     self.ram_data.eq(ram.r_data)]
        m.d.sync += self.r_data.eq(ram.r_data)
        return m
