"""Block RAMs whose read data leaves through the block RAM's own output register where the
platform has one: a simple dual-port memory (:class:`RegisteredRAM`, a write port and a read
port) and a ROM (:class:`RegisteredROM`, read ports only).

Yosys 0.70 maps an Amaranth ``Memory`` on the ECP5 to DP16KD block RAMs with
``REGMODE = "NOREG"`` only, and emulates the read port's read-old behaviour (which the DP16KD
leaves undefined when the other port writes the same address in the same cycle) in the
fabric: the write delayed a cycle through registers and a multiplexer forwarding the word
being written. A register after the read port is then a fabric flip-flop behind that
multiplexer (or, for a ROM deeper than one block at the map's 18-bit ports, behind the
multiplexer that picks the block): the DP16KD's clock-to-out without its output register
(5.6–5.8 ns), the wire and the multiplexer made one of the slowest paths of the streaming
NTT. Both units therefore instantiate the DP16KDs themselves when elaborated for an ECP5
(:func:`~fhe_hw.arith.dsp.is_ecp5`), with ``REGMODE = "OUTREG"`` on their read ports, and
describe the same memory and registers in plain Amaranth everywhere else (simulation,
Verilog for other tools). They are the memory analogues of
:class:`~fhe_hw.arith.dsp.TileProduct`.
"""

from amaranth import ClockSignal, Const, Elaboratable, Instance, Module, Mux, ResetSignal, Signal
from amaranth.lib.memory import Memory

from ..arith.dsp import is_ecp5
from ..params import check_bool, require_int

__all__ = ["RegisteredRAM", "RegisteredROM", "ReadPort", "dp16kd_shape", "dp16kd_initval",
           "PDPW16KD_DEPTH", "PDPW16KD_WIDTH"]

#: DP16KD port widths and the address bits each leaves unused at the bottom of ``AD[13:0]``
#: (Yosys's ``brams_map_16kd.v``: a port of width 1, 2, 4, 9, 18 has 16384, 8192, 4096, 2048,
#: 1024 words; at width 18, ``AD0``/``AD1`` are the write port's byte enables).
_DP16KD_WIDTHS = {18: 4, 9: 3, 4: 2, 2: 1, 1: 0}
_DP16KD_ADDRESS_BITS = 14
#: The DP16KD's array: 1024 rows of two 9-bit bytes, row r in bits [20(r % 16), +18) of
#: ``INITVAL_{r // 16}`` (2 bits of padding per row), byte 2r + h in bits [9h, +9) of the row
#: (Yosys's ``brams_map_16kd.v`` writes the rows so; nextpnr's ``ecp5/bitstream.cc`` takes
#: each row as those two bytes).
_DP16KD_ROWS, _DP16KD_ROWS_PER_INITVAL = 1024, 16


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


def dp16kd_initval(words, w):
    """The ``INITVAL_00`` ... ``INITVAL_3F`` parameters (``{name: 320-bit int}``) of a DP16KD
    whose ports of width ``w`` read ``words[a]`` at word address a. A word of 9 or 18 bits
    is one or two whole bytes (word a starts at bit 9a·w/9 of the array); a word of 1, 2 or 4
    bits is one of the 8/w in the low 8 bits of a byte (word a in byte a // (8/w), at bit
    (a mod 8/w)·w; the bytes' ninth bits are the parity bits only the wide ports reach), as
    Yosys's ECP5 memory map (``brams_16kd.txt``: ``byte 9``) lays out the words it infers."""
    array, per = 0, max(8 // w, 1)
    for a, v in enumerate(words):
        start = a * w if w >= 9 else a // per * 9 + a % per * w
        array |= (v & ((1 << w) - 1)) << start
    rows = [array >> (18 * r) & ((1 << 18) - 1) for r in range(_DP16KD_ROWS)]
    n = _DP16KD_ROWS_PER_INITVAL
    return {f"INITVAL_{i:02X}": sum(row << (20 * k) for k, row in enumerate(rows[i * n:][:n]))
            for i in range(_DP16KD_ROWS // n)}


def _dp16kd_port(port, w, addr, *, ce, output_reg=False, write=None, read=None):
    """The ``Instance`` arguments of DP16KD port ``"A"`` or ``"B"`` at width ``w``: the word
    address ``addr`` on ``AD[13:s]``, ``ce`` on ``CE``, ``write`` = (write enable, data) for
    a writing port (at width 18 its ``AD0``/``AD1`` byte enables set), ``read`` the signal
    that ``DO`` drives for a reading port, which gets the domain's reset on ``RST`` and, with
    ``output_reg``, ``REGMODE = "OUTREG"``. No chip select."""
    we, di = write if write is not None else (Const(0), Const(0, 1))
    args = {f"p_DATA_WIDTH_{port}": w, f"p_REGMODE_{port}": "OUTREG" if output_reg else "NOREG",
            f"p_CSDECODE_{port}": "0b000", f"p_WRITEMODE_{port}": "NORMAL",
            f"i_CLK{port}": ClockSignal(), f"i_CE{port}": ce, f"i_OCE{port}": Const(1),
            f"i_WE{port}": we,
            f"i_RST{port}": ResetSignal(allow_reset_less=True) if read is not None else Const(0)}
    lost = _DP16KD_WIDTHS[w]
    for k in range(_DP16KD_ADDRESS_BITS):
        a = k - lost
        args[f"i_AD{port}{k}"] = addr[a] if 0 <= a < len(addr) else \
            Const(int(write is not None and w == 18 and k < 2))
    for k in range(3):
        args[f"i_CS{port}{k}"] = Const(0)
    for k in range(18):
        args[f"i_DI{port}{k}"] = di[k] if k < min(w, len(di)) else Const(0)
        if read is not None and k < w:
            args[f"o_DO{port}{k}"] = read[k]
    return args


#: The PDPW16KD's words at its 36-bit ports (``wide`` :class:`RegisteredRAM`).
PDPW16KD_DEPTH, PDPW16KD_WIDTH = 512, 36


def _pdpw16kd(w_en, w_addr, w_data, r_en, r_addr, read, *, output_reg):
    """A PDPW16KD (pseudo dual port, both ports 36 bits wide): ``w_data`` written at
    ``w_addr`` (``ADW``, all four byte enables set) at a clock edge with ``w_en`` on ``CEW``;
    ``r_addr`` read (the word address on ``ADR[13:5]``) with ``r_en`` on ``CER``, the word on
    ``read``, through the output register with ``output_reg``; the domain's reset on ``RST``.
    Data bit k is ``DI``/``DO`` k (nextpnr packs ``DI[17:0]``/``DI[35:18]`` into ``DIA``/
    ``DIB`` and ``DO[17:0]``/``DO[35:18]`` from ``DOB``/``DOA``)."""
    args = {"p_DATA_WIDTH_W": PDPW16KD_WIDTH, "p_DATA_WIDTH_R": PDPW16KD_WIDTH,
            "p_REGMODE": "OUTREG" if output_reg else "NOREG", "p_RESETMODE": "SYNC",
            "p_ASYNC_RESET_RELEASE": "SYNC", "p_CSDECODE_W": "0b000", "p_CSDECODE_R": "0b000",
            "p_GSR": "DISABLED", "i_CLKW": ClockSignal(), "i_CEW": w_en,
            "i_CLKR": ClockSignal(), "i_CER": r_en, "i_OCER": Const(1),
            "i_RST": ResetSignal(allow_reset_less=True)}
    for k in range(4):
        args[f"i_BE{k}"] = Const(1)
    for k in range(3):
        args[f"i_CSW{k}"] = args[f"i_CSR{k}"] = Const(0)
    for k in range(9):
        args[f"i_ADW{k}"] = w_addr[k] if k < len(w_addr) else Const(0)
    for k in range(14):
        a = k - 5
        args[f"i_ADR{k}"] = r_addr[a] if 0 <= a < len(r_addr) else Const(0)
    for k in range(PDPW16KD_WIDTH):
        args[f"i_DI{k}"] = w_data[k] if k < len(w_data) else Const(0)
        if k < len(read):
            args[f"o_DO{k}"] = read[k]
    return Instance("PDPW16KD", **args)


def _dp16kd(a, b, initval=None):
    """A DP16KD with ports ``a`` and ``b`` (:func:`_dp16kd_port`), its array initialised
    from ``initval`` (:func:`dp16kd_initval`; zero when None)."""
    init = {f"p_{name}": Const(v, 320) for name, v in (initval or {}).items()}
    return Instance("DP16KD", p_RESETMODE="SYNC", p_ASYNC_RESET_RELEASE="SYNC",
                    p_GSR="DISABLED", **init, **a, **b)


class ReadPort:
    """A read port of :class:`RegisteredRAM` or :class:`RegisteredROM`: ``r_addr`` is read in a
    cycle where ``r_en`` is 1 (its default when undriven) and its word is on ``r_data`` the
    unit's ``latency`` cycles later; after a cycle without a read, ``r_data`` repeats the word
    before."""

    def __init__(self, width, depth, name=None):
        prefix = f"{name}_" if name else ""
        self.r_en = Signal(init=1, name=f"{prefix}r_en")
        self.r_addr = Signal(range(depth), name=f"{prefix}r_addr")
        self.r_data = Signal(width, name=f"{prefix}r_data")

    def portable(self, m, mem, output_reg):
        """Drive this port from a read port of the Amaranth ``Memory`` ``mem`` (``en`` = 0
        holds its word, as ``CE`` = 0 does on the DP16KD), through a register with
        ``output_reg``."""
        rp = mem.read_port()
        m.d.comb += [rp.en.eq(self.r_en), rp.addr.eq(self.r_addr)]
        m.d["sync" if output_reg else "comb"] += self.r_data.eq(rp.data)


class _BlockMemory(Elaboratable):
    """What :class:`RegisteredRAM` and :class:`RegisteredROM` share: the read latency, and
    block RAMs (the subclass's ``_dp16kd``) when elaborated for an ECP5 with more than one word,
    else a portable Amaranth ``Memory`` (``_portable``)."""

    @property
    def latency(self):
        """Clock cycles from a read port's ``r_addr`` to its ``r_data``."""
        return 1 + self.output_reg

    def elaborate(self, platform):
        m = Module()
        if is_ecp5(platform) and self.depth > 1:
            self._dp16kd(m)
        else:
            self._portable(m)
        return m


class RegisteredRAM(_BlockMemory):
    """``depth`` words of ``width`` bits with one write and one read port.

    Ports (the enclosing module drives the inputs, combinationally or from registers):
    ``w_en``, ``w_addr``, ``w_data`` write ``w_data`` to ``w_addr`` at the end of a cycle
    where ``w_en`` is 1; ``r_en``, ``r_addr``, ``r_data`` are a :class:`ReadPort` with
    ``latency`` 1 (the address registered in the RAM) + ``output_reg`` (the word then
    registered once more). The output register is reset to 0 by the domain's synchronous
    reset; the memory is not initialised. There is no clock enable (an ``EnableInserter``
    would not reach the DP16KD).

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

    With ``wide`` (at most :data:`PDPW16KD_DEPTH` words of at most :data:`PDPW16KD_WIDTH`
    bits) the ECP5 form is one PDPW16KD, the block RAM's pseudo-dual-port mode with 36-bit
    ports, instead of the DP16KDs at 18 bits that a word wider than 18 bits needs two of: the
    same ports, latency, write register and bypass.
    """

    def __init__(self, width, depth, *, output_reg, wide=False):
        if width < 1 or depth < 1:
            raise ValueError(f"a RAM needs width >= 1 and depth >= 1, not {width} x {depth}")
        check_bool("wide", wide)
        if wide and (depth > PDPW16KD_DEPTH or width > PDPW16KD_WIDTH):
            raise ValueError(f"wide needs at most {PDPW16KD_DEPTH} words of at most "
                             f"{PDPW16KD_WIDTH} bits, not {depth} x {width}")
        self.width, self.depth, self.output_reg = width, depth, bool(output_reg)
        self.wide = wide
        self.w_en = Signal()
        self.w_addr = Signal(range(depth))
        self.w_data = Signal(width)
        self._read = ReadPort(width, depth)
        self.r_en, self.r_addr, self.r_data = self._read.r_en, self._read.r_addr, \
            self._read.r_data

    def _portable(self, m):
        m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=[])
        wp = mem.write_port()
        m.d.comb += [wp.en.eq(self.w_en), wp.addr.eq(self.w_addr), wp.data.eq(self.w_data)]
        self._read.portable(m, mem, self.output_reg)

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
        if self.wide:
            data = Signal(self.width)
            m.submodules.ram = _pdpw16kd(wq_en, wq_addr, wq_data, self.r_en, self.r_addr, data,
                                         output_reg=self.output_reg)
            word = data
        else:
            w, blocks = dp16kd_shape(self.width, self.depth)
            data = Signal(w * blocks)
            for j in range(blocks):
                m.submodules[f"ram{j}"] = _dp16kd(
                    _dp16kd_port("A", w, wq_addr, ce=Const(1),
                                 write=(wq_en, wq_data[j * w:(j + 1) * w])),
                    _dp16kd_port("B", w, self.r_addr, ce=self.r_en, output_reg=self.output_reg,
                                 read=data[j * w:(j + 1) * w]))
            word = data[:self.width]
        m.d.comb += self.r_data.eq(Mux(hit, fwd, word))


class RegisteredROM(_BlockMemory):
    """The constant words ``init`` (each ``width`` bits; depth ``len(init)``) with
    ``read_ports`` read ports.

    Ports: ``ports``, the :class:`ReadPort`\\ s (``r_en``, ``r_addr``, ``r_data`` each), of
    ``latency`` 1 (the address registered in the ROM) + ``output_reg`` (the word then
    registered once more). The output registers are reset to 0 by the domain's synchronous
    reset.

    On an ECP5 the unit is, for more than one word, ⌈``read_ports``/2⌉ copies of
    :func:`dp16kd_shape` DP16KDs side by side, both ports of a copy reading (read port q is
    port A of copy q // 2 for even q, port B for odd q; the B port of a last copy without a
    partner is idle), the words in ``INITVAL_00`` ... ``INITVAL_3F``
    (:func:`dp16kd_initval`), ``REGMODE = "OUTREG"`` on the reading ports with ``output_reg``
    (else ``"NOREG"``), a port's ``r_en`` on its ``CE``, ``RESETMODE = "SYNC"``,
    ``GSR = "DISABLED"`` and the domain's reset (0 if it has none) on ``RSTA``/``RSTB``.
    Elaborating it for an ECP5 raises ``ValueError`` when the depth exceeds 16384 words.
    ``ValueError``/``TypeError`` for an empty ``init``, a word outside [0, 2^width), a width
    or port count below 1.
    """

    def __init__(self, width, init, *, read_ports=1, output_reg):
        require_int("width", width, minimum=1)
        require_int("read_ports", read_ports, minimum=1)
        init = list(init)
        if not init:
            raise ValueError("a ROM needs at least one word")
        for a, v in enumerate(init):
            require_int(f"word {a}", v, minimum=0, maximum=(1 << width) - 1)
        self.width, self.init, self.output_reg = width, init, bool(output_reg)
        self.ports = [ReadPort(width, len(init), f"port{q}") for q in range(read_ports)]

    @property
    def depth(self):
        return len(self.init)

    def _portable(self, m):
        m.submodules.mem = mem = Memory(shape=self.width, depth=self.depth, init=self.init)
        for port in self.ports:
            port.portable(m, mem, self.output_reg)

    def _dp16kd(self, m):
        w, blocks = dp16kd_shape(self.width, self.depth)
        initvals = [dp16kd_initval([v >> (j * w) for v in self.init], w) for j in range(blocks)]
        for c in range(-(-len(self.ports) // 2)):
            pair = self.ports[2 * c:2 * c + 2]
            data = [Signal(w * blocks, name=f"copy{c}_{x}") for x in "ab"[:len(pair)]]
            for j in range(blocks):
                args = [_dp16kd_port(name, w, port.r_addr, ce=port.r_en,
                                     output_reg=self.output_reg, read=d[j * w:(j + 1) * w])
                        for name, port, d in zip("AB", pair, data)]
                if len(pair) == 1:      # the copy's B port idles
                    args.append(_dp16kd_port("B", w, Const(0, 1), ce=Const(0)))
                m.submodules[f"rom{c}_{j}"] = _dp16kd(*args, initvals[j])
            for port, d in zip(pair, data):
                m.d.comb += port.r_data.eq(d[:self.width])
