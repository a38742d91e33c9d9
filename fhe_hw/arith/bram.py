"""One simple dual-port memory (a write port, a read port) whose read data leaves through the
block RAM's own output register where the platform has one.

Yosys 0.70 maps an Amaranth ``Memory`` on the ECP5 to DP16KD block RAMs with
``REGMODE = "NOREG"`` only, and emulates the read port's read-old behaviour (which the DP16KD
leaves undefined when the other port writes the same address in the same cycle) in the
fabric: the write delayed a cycle through registers and a multiplexer forwarding the word
being written. A register after the read port is then a fabric flip-flop behind that
multiplexer: the DP16KD's clock-to-out without its output register (5.6–5.8 ns), the wire and
the multiplexer made one of the slowest paths of the streaming NTT. :class:`RegisteredRAM`
therefore instantiates the DP16KDs itself when elaborated for an ECP5
(:func:`~fhe_hw.arith.dsp.is_ecp5`), with ``REGMODE_B = "OUTREG"``, the write registered the
same way and the forwarding multiplexer after the output register, and describes the same
memory and registers in plain Amaranth everywhere else (simulation, Verilog for other tools).
It is the memory analogue of :class:`~fhe_hw.arith.dsp.TileProduct`.
"""

from amaranth import ClockSignal, Const, Elaboratable, Instance, Module, Mux, ResetSignal, Signal
from amaranth.lib.memory import Memory

from .dsp import is_ecp5

__all__ = ["RegisteredRAM", "dp16kd_shape"]

#: DP16KD port widths and the address bits each leaves unused at the bottom of ``AD[13:0]``
#: (Yosys's ``brams_map_16kd.v``: a port of width 1, 2, 4, 9, 18 has 16384, 8192, 4096, 2048,
#: 1024 words; at width 18, ``AD0``/``AD1`` are the write port's byte enables).
_DP16KD_WIDTHS = {18: 4, 9: 3, 4: 2, 2: 1, 1: 0}
_DP16KD_ADDRESS_BITS = 14


def dp16kd_shape(width, depth):
    """(port width, blocks side by side) of the DP16KDs that hold ``depth`` words of ``width``
    bits: the fewest blocks, the widest port among equals. ``ValueError`` when ``depth``
    exceeds one block (16384 words)."""
    fits = [(-(-width // w), -w) for w, lost in _DP16KD_WIDTHS.items()
            if depth <= 1 << (_DP16KD_ADDRESS_BITS - lost)]
    if not fits:
        raise ValueError(f"a memory of depth {depth} is deeper than one DP16KD (16384 words)")
    blocks, w = min(fits)
    return -w, blocks


class RegisteredRAM(Elaboratable):
    """``depth`` words of ``width`` bits with one write and one read port.

    Ports (the enclosing module drives the inputs, combinationally or from registers):
    ``w_en``, ``w_addr``, ``w_data`` write ``w_data`` to ``w_addr`` at the end of a cycle
    where ``w_en`` is 1; ``r_addr`` is read in a cycle where ``r_en`` is 1 (its default when
    undriven) and its word is on ``r_data`` ``latency`` cycles later: 1 (the address
    registered in the RAM) + ``output_reg`` (the word then registered once more). After a
    cycle without a read, ``r_data`` repeats the word before. The output register is reset to
    0 by the domain's synchronous reset; the memory is not initialised. There is no clock enable (an
    ``EnableInserter`` would not reach the DP16KD).

    A read of the address written in the same cycle gives the old word, in both forms.

    On an ECP5 the unit is, for more than one word, :func:`dp16kd_shape` DP16KDs side by side:
    the write registered in the fabric (so that the user's write logic does not end at the
    block RAM's pins) and applied a cycle later through ``WEA``/``ADA``/``DIA``, the read
    through ``ADB``/``DOB`` with ``REGMODE_B = "OUTREG"`` with ``output_reg`` (else
    ``"NOREG"``), ``r_en`` on ``CEB``; a read of the word that port A writes at the same edge
    (undefined on the device) takes the registered write word instead, through a multiplexer
    after the output register. ``RESETMODE = "SYNC"``, ``GSR = "DISABLED"``, the domain's
    reset (0 if it has none) on ``RSTB`` and on the fabric registers. Elaborating it for an
    ECP5 raises ``ValueError`` when ``depth`` exceeds 16384 words. A one-word memory keeps the
    portable form there too (Yosys makes it flip-flops).
    """

    def __init__(self, width, depth, *, output_reg):
        if width < 1 or depth < 1:
            raise ValueError(f"a RAM needs width >= 1 and depth >= 1, not {width} x {depth}")
        self.width, self.depth, self.output_reg = width, depth, bool(output_reg)
        self.w_en = Signal()
        self.w_addr = Signal(range(depth))
        self.w_data = Signal(width)
        self.r_en = Signal(init=1)
        self.r_addr = Signal(range(depth))
        self.r_data = Signal(width)

    @property
    def latency(self):
        """Clock cycles from ``r_addr`` to ``r_data``."""
        return 1 + self.output_reg

    def elaborate(self, platform):
        m = Module()
        if is_ecp5(platform) and self.depth > 1:
            self._dp16kd(m)
            return m
        m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=[])
        wp, rp = mem.write_port(), mem.read_port()
        # en = 0 holds the read port's word, as CEB = 0 does on the DP16KD.
        m.d.comb += [wp.en.eq(self.w_en), wp.addr.eq(self.w_addr), wp.data.eq(self.w_data),
                     rp.en.eq(self.r_en), rp.addr.eq(self.r_addr)]
        m.d["sync" if self.output_reg else "comb"] += self.r_data.eq(rp.data)
        return m

    def _dp16kd(self, m):
        # The write is registered in the fabric (the DP16KD's DIA/ADA are then not the end of
        # the user's write logic) and reaches the RAM a cycle late; a read of the word that the
        # RAM writes at the same edge (undefined on the DP16KD) takes the registered word
        # instead, after the output register, so that the form reads the old word as the
        # portable one does.
        wq_en, wq_addr, wq_data = Signal(), Signal.like(self.w_addr), Signal.like(self.w_data)
        m.d.sync += [wq_en.eq(self.w_en), wq_addr.eq(self.w_addr), wq_data.eq(self.w_data)]
        hit, fwd = Signal(), Signal.like(self.w_data)
        with m.If(self.r_en):
            m.d.sync += [hit.eq(wq_en & (wq_addr == self.r_addr)), fwd.eq(wq_data)]
        if self.output_reg:
            hit_q, fwd_q = Signal(), Signal.like(self.w_data)
            m.d.sync += [hit_q.eq(hit), fwd_q.eq(fwd)]
            hit, fwd = hit_q, fwd_q
        w, blocks = dp16kd_shape(self.width, self.depth)
        lost = _DP16KD_WIDTHS[w]
        data = Signal(w * blocks)
        for j in range(blocks):
            bits = {}
            for port, addr in (("A", wq_addr), ("B", self.r_addr)):
                for k in range(_DP16KD_ADDRESS_BITS):
                    a = k - lost
                    # Width 18: AD0/AD1 are the byte enables, used by the write port only.
                    bits[f"i_AD{port}{k}"] = addr[a] if 0 <= a < len(addr) else \
                        Const(int(port == "A" and w == 18 and k < 2))
                for k in range(3):
                    bits[f"i_CS{port}{k}"] = Const(0)
            for k in range(18):
                src = j * w + k
                bits[f"i_DIA{k}"] = wq_data[src] if k < w and src < self.width else Const(0)
                bits[f"i_DIB{k}"] = Const(0)
                if k < w:
                    bits[f"o_DOB{k}"] = data[j * w + k]
            m.submodules[f"ram{j}"] = Instance(
                "DP16KD",
                p_DATA_WIDTH_A=w, p_DATA_WIDTH_B=w, p_REGMODE_A="NOREG",
                p_REGMODE_B="OUTREG" if self.output_reg else "NOREG",
                p_RESETMODE="SYNC", p_ASYNC_RESET_RELEASE="SYNC",
                p_CSDECODE_A="0b000", p_CSDECODE_B="0b000",
                p_WRITEMODE_A="NORMAL", p_WRITEMODE_B="NORMAL", p_GSR="DISABLED",
                i_CLKA=ClockSignal(), i_CEA=Const(1), i_OCEA=Const(1), i_WEA=wq_en,
                i_RSTA=Const(0),
                i_CLKB=ClockSignal(), i_CEB=self.r_en, i_OCEB=Const(1), i_WEB=Const(0),
                i_RSTB=ResetSignal(allow_reset_less=True),
                **bits)
        m.d.comb += self.r_data.eq(Mux(hit, fwd, data[:self.width]))
