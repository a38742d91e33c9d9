"""The host-link engine: frame receiver, command executor, operand/result memories and the run
controller around any registered unit (protocol: :mod:`fhe_hw.link.protocol`).

:class:`LinkCore` works on bytes (its ``rx`` takes what a UART receiver delivers, its ``tx``
feeds a UART transmitter); :class:`HostLinkTop` adds the UART pins and is the whole board top
except the I/O buffers, which is what the host driver's simulated transport runs.

Robustness: a frame is unstuffed into a frame buffer while its CRC is computed; only
after the closing ``END`` is it judged (bad escape, too short, too long, bad CRC) and only a good
frame whose arguments all check is executed, so no partial or corrupted frame can write a
memory. The receiver never waits for anything but bytes: a frame that never ends is closed by
the next ``END`` (every frame the host sends starts with one) and answered with an error; bytes
that arrive while a command executes are dropped up to the next ``END`` and counted.
"""

import json

from amaranth import Cat, Const, Module, Mux, ResetInserter, Signal, unsigned
from amaranth.hdl import Value
from amaranth.lib import stream
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out, connect, flipped

from ..component import Component
from ..lib.rom import rom_ports
from ..params import require_int
from ..units import get_unit, units
from .protocol import (
    END,
    ESC,
    ESC_END,
    ESC_ESC,
    STATUS_FIELDS,
    Command,
    Status,
    word_bytes,
)
from .slip import SlipTx, crc16_processor
from .uart import UartRx, UartTx, uart_divisor

__all__ = ["LinkCore", "HostLinkTop", "stream_ports", "describe"]

_HEADER = 7      # seq, cmd and up to five argument bytes are read before a command is checked
_WRITE_DATA = 7  # offset of the first data byte of a WRITE (seq, cmd, mem, addr:2, count:2)


def stream_ports(unit):
    """``[(name, flow, interface, bits)]`` for every stream member of ``unit``'s signature, in
    signature order; ``flow`` is ``In`` for a stream the unit consumes."""
    ports = []
    for name, member in unit.signature.members.items():
        if member.is_signature and isinstance(member.signature, stream.Signature):
            iface = getattr(unit, name)
            ports.append((name, member.flow, iface, len(Value.cast(iface.payload))))
    return ports


def describe(unit, unit_name, params, depth, *, clk_hz=None, baud=None, max_frame=None):
    """The IDENTIFY descriptor of ``unit`` as a dict (the gateware stores it as compact JSON);
    its ``latency`` is the registry's timing contract (``None`` for a stream engine or a unit
    that is not registered)."""
    ports = stream_ports(unit)
    mems = [{"id": n, "port": name, "dir": "in" if flow == In else "out", "bits": bits,
             "depth": depth} for n, (name, flow, _, bits) in
            enumerate(sorted(ports, key=lambda p: p[1] != In))]
    return {"proto": 1, "unit": unit_name, "params": params, "mems": mems,
            "latency": get_unit(unit_name).latency(params) if unit_name in units() else None,
            "clk_hz": clk_hz, "baud": baud,
            "max_frame": max_frame}


def _descriptor_bytes(desc):
    return json.dumps(desc, separators=(",", ":"), sort_keys=True, default=str).encode()


class LinkCore(Component):
    """Executes host-link commands on ``unit``'s memories.

    Parameters: ``unit`` (a Component whose stream members are its data ports: each input stream
    gets an input memory, each output stream an output memory, ``depth`` words of the payload
    width each, ids in the order inputs then outputs), ``descriptor`` (the IDENTIFY bytes),
    ``depth`` (1..65535), ``max_frame`` (largest unstuffed request in bytes, 16..4096).

    Ports: ``rx`` (always-ready byte stream in; a byte is taken in its valid cycle), ``tx`` (byte
    stream out, SLIP frames), ``uart_error`` (In(1): counted as ``uart_errors``), ``busy``
    (Out(1): a run is feeding the unit), ``error`` (Out(1): the last response was an error).

    Raises ``ValueError`` for a unit without input and output streams or a bad depth/max_frame.
    """

    def __init__(self, unit, descriptor, *, depth=256, max_frame=512):
        require_int("depth", depth)
        require_int("max_frame", max_frame)
        if not 1 <= depth <= 0xFFFF:
            raise ValueError(f"depth must be in 1..65535, not {depth}")
        if not 16 <= max_frame <= 4096:
            raise ValueError(f"max_frame must be in 16..4096, not {max_frame}")
        ports = stream_ports(unit)
        self._inputs = [p for p in ports if p[1] == In]
        self._outputs = [p for p in ports if p[1] == Out]
        if not self._inputs or not self._outputs:
            names = sorted(p[0] for p in ports)
            raise ValueError(f"unit must have input and output streams, not {names}")
        if not descriptor:
            raise ValueError("descriptor must not be empty")
        self._unit, self._descriptor = unit, bytes(descriptor)
        self._depth, self._max_frame = depth, max_frame
        super().__init__({"rx": In(stream.Signature(unsigned(8), always_ready=True)),
                          "tx": Out(stream.Signature(unsigned(8))), "uart_error": In(1),
                          "busy": Out(1), "error": Out(1)})

    @property
    def depth(self):
        return self._depth

    @property
    def max_frame(self):
        return self._max_frame

    def elaborate(self, platform):
        m = Module()
        depth, max_frame = self._depth, self._max_frame
        mems = self._inputs + self._outputs
        n_in = len(self._inputs)
        wbytes = [word_bytes(bits) for *_, bits in mems]
        acc_bytes = max(wbytes)

        # --- frame buffer and receiver ------------------------------------------------------
        m.submodules.buffer = buffer = Memory(shape=unsigned(8), depth=max_frame, init=[])
        buf_w = buffer.write_port()
        buf_r = buffer.read_port(transparent_for=())
        hunt, esc, too_long, bad_esc = Signal(), Signal(), Signal(), Signal()
        flen = Signal(range(max_frame + 1))
        m.submodules.rx_crc = rx_crc = crc16_processor()
        go = Signal()
        idle = Signal()
        counters = {name: Signal(16, name=f"n_{name}")
                    for name in ("bad_frame", "bad_crc", "dropped", "uart_errors")}
        with m.If(self.uart_error):
            m.d.sync += counters["uart_errors"].eq(counters["uart_errors"] + 1)

        f_len = Signal.like(flen)
        f_bad, f_crc_ok = Signal(), Signal()
        byte = self.rx.payload
        store = Signal()
        store_byte = Signal(8)
        restart = [flen.eq(0), esc.eq(0), too_long.eq(0), bad_esc.eq(0)]
        with m.If(self.rx.valid):
            with m.If(~idle):
                with m.If(~hunt):
                    m.d.sync += counters["dropped"].eq(counters["dropped"] + 1)
                m.d.sync += hunt.eq(1)
            with m.Elif(hunt):
                with m.If(byte == END):
                    m.d.sync += [hunt.eq(0), *restart]
                    m.d.comb += rx_crc.start.eq(1)
            with m.Elif(byte == END):
                with m.If((flen != 0) | bad_esc | too_long):
                    m.d.comb += go.eq(1)
                    m.d.sync += [f_len.eq(flen), f_bad.eq(bad_esc | too_long | (flen < 4)),
                                 f_crc_ok.eq(rx_crc.match_detected)]
                m.d.sync += restart
                m.d.comb += rx_crc.start.eq(1)
            with m.Elif(esc):
                m.d.sync += esc.eq(0)
                with m.If((byte == ESC_END) | (byte == ESC_ESC)):
                    m.d.comb += [store.eq(1), store_byte.eq(Mux(byte == ESC_END, END, ESC))]
                with m.Else():
                    m.d.sync += bad_esc.eq(1)
            with m.Elif(byte == ESC):
                m.d.sync += esc.eq(1)
            with m.Else():
                m.d.comb += [store.eq(1), store_byte.eq(byte)]
        with m.If(store):
            with m.If(flen < max_frame):
                m.d.comb += [buf_w.en.eq(1), buf_w.addr.eq(flen), buf_w.data.eq(store_byte)]
                m.d.sync += flen.eq(flen + 1)
                m.d.comb += [rx_crc.valid.eq(1), rx_crc.data.eq(store_byte)]
            with m.Else():
                m.d.sync += too_long.eq(1)

        # --- memories --------------------------------------------------------------------------
        unit_rst = Signal()
        m.submodules.unit = ResetInserter({"sync": unit_rst})(self._unit)
        rports, wports = [], []
        for n, (name, _, _, bits) in enumerate(mems):
            mem = Memory(shape=unsigned(bits), depth=depth, init=[])
            m.submodules[f"mem_{n}_{name}"] = mem
            wports.append(mem.write_port())
            rports.append(mem.read_port(transparent_for=()))

        # --- run controller ----------------------------------------------------------------------
        running = Signal()
        count = Signal(16)
        tick, t_first, t_last = Signal(32), Signal(32), Signal(32)
        seen_in, seen_out, overflow = Signal(), Signal(), Signal()
        fed = [Signal(16, name=f"fed_{n}") for n in range(n_in)]
        nxt = [Signal(16, name=f"next_{n}") for n in range(n_in)]
        beat = [Signal(name=f"beat_{n}") for n in range(n_in)]
        outs = [Signal(16, name=f"out_{n}") for n in range(len(self._outputs))]
        feeding = Signal()
        m.d.comb += feeding.eq(running & Cat(f != count for f in fed).any())
        host_addr = Signal(16)
        start_run = Signal()
        stop_run = Signal()
        with m.If(running):
            m.d.sync += tick.eq(tick + 1)
        for n, (_, _, iface, _) in enumerate(self._inputs):
            rp = rports[n]
            ready = iface.ready
            load = ~beat[n] | ready
            m.d.comb += [rp.addr.eq(Mux(feeding, nxt[n], host_addr)),
                         rp.en.eq(~feeding | load),
                         iface.valid.eq(beat[n]), Value.cast(iface.payload).eq(rp.data)]
            with m.If(running & load):
                m.d.sync += beat[n].eq(nxt[n] != count)
                with m.If(nxt[n] != count):
                    m.d.sync += nxt[n].eq(nxt[n] + 1)
            with m.If(beat[n] & ready):
                m.d.sync += fed[n].eq(fed[n] + 1)
                if n == 0:
                    with m.If(~seen_in):
                        m.d.sync += [seen_in.eq(1), t_first.eq(tick)]
        for j, (_, _, iface, _) in enumerate(self._outputs):
            wp, rp = wports[n_in + j], rports[n_in + j]
            if not isinstance(iface.ready, Const):
                m.d.comb += iface.ready.eq(1)
            m.d.comb += [rp.addr.eq(host_addr), wp.addr.eq(outs[j]),
                         wp.data.eq(Value.cast(iface.payload))]
            with m.If(running & iface.valid):
                m.d.sync += [seen_out.eq(1), t_last.eq(tick)]
                with m.If(outs[j] < depth):
                    m.d.comb += wp.en.eq(1)
                    m.d.sync += outs[j].eq(outs[j] + 1)
                with m.Else():
                    m.d.sync += overflow.eq(1)
        with m.If(start_run):
            m.d.sync += [running.eq(1), tick.eq(0), seen_in.eq(0), seen_out.eq(0),
                         overflow.eq(0), *(s.eq(0) for s in fed + nxt + beat + outs)]
        with m.If(stop_run):
            m.d.sync += [running.eq(0), *(s.eq(0) for s in beat)]
        m.d.comb += self.busy.eq(feeding)

        # --- executor ------------------------------------------------------------------------
        hdr = Signal(8 * _HEADER)
        hidx = Signal(range(_HEADER))
        ptr = Signal(range(max_frame + 1))
        m.d.comb += buf_r.addr.eq(ptr)
        seq, cmd = hdr[0:8], hdr[8:16]
        arg = [hdr[8 * k:8 * k + 8] for k in range(2, _HEADER)]
        plen = Signal(range(max_frame + 1))                  # argument bytes
        status = Signal(8)
        pkind = Signal(2)                                    # 0 none, 1 ROM, 2 status, 3 memory
        hmem = Signal(range(len(mems)))
        hwb = Signal(range(acc_bytes + 1))
        remaining = Signal(16)
        bidx = Signal(range(acc_bytes))
        acc = Signal(8 * acc_bytes)
        rom_r, = rom_ports(m, "identify_rom", 8, self._descriptor, port_names=["rom_r"])
        rom_idx = Signal(range(len(self._descriptor)))
        m.d.comb += rom_r.addr.eq(rom_idx)
        status_bytes = sum(s for _, s in STATUS_FIELDS) + 2 * len(outs)
        sreg = Signal(8 * status_bytes)
        sidx = Signal(range(status_bytes))

        tx_valid, tx_data, tx_last = Signal(), Signal(8), Signal()
        m.submodules.slip = slip = SlipTx()
        m.d.comb += [slip.i.valid.eq(tx_valid), slip.i.payload.data.eq(tx_data),
                     slip.i.payload.last.eq(tx_last)]
        connect(m, slip.o, flipped(self.tx))
        adv = tx_valid & slip.i.ready

        mem_data = Signal(8 * acc_bytes)
        with m.Switch(hmem):
            for n, rp in enumerate(rports):
                with m.Case(n):
                    m.d.comb += mem_data.eq(rp.data)

        def respond(code, kind=0):
            m.d.sync += [status.eq(code), pkind.eq(kind)]
            m.next = "R_SEQ"

        addr16 = Cat(arg[1], arg[2])
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(go):
                    m.d.sync += ptr.eq(0)
                    m.next = "PRIME"
            with m.State("PRIME"):
                m.d.sync += [ptr.eq(1), hidx.eq(0), plen.eq(f_len - 4)]
                m.next = "HEADER"
            with m.State("HEADER"):
                m.d.sync += [hdr.word_select(hidx, 8).eq(buf_r.data), ptr.eq(ptr + 1),
                             hidx.eq(hidx + 1)]
                with m.If(hidx == _HEADER - 1):
                    m.next = "CHECK"
            with m.State("CHECK"):
                with m.If(f_bad):
                    m.d.sync += counters["bad_frame"].eq(counters["bad_frame"] + 1)
                    respond(Status.BAD_FRAME)
                with m.Elif(~f_crc_ok):
                    m.d.sync += counters["bad_crc"].eq(counters["bad_crc"] + 1)
                    respond(Status.BAD_CRC)
                with m.Else():
                    self._check(m, locals())
            with m.State("R_SEQ"):
                m.d.comb += [tx_valid.eq(1), tx_data.eq(seq)]
                with m.If(adv):
                    m.next = "R_CMD"
            with m.State("R_CMD"):
                m.d.comb += [tx_valid.eq(1), tx_data.eq(cmd)]
                with m.If(adv):
                    m.next = "R_STATUS"
            with m.State("R_STATUS"):
                m.d.comb += [tx_valid.eq(1), tx_data.eq(status), tx_last.eq(pkind == 0)]
                with m.If(adv):
                    m.d.sync += [rom_idx.eq(0), sidx.eq(0)]
                    with m.Switch(pkind):
                        with m.Case(0):
                            m.next = "IDLE"
                        with m.Case(1):
                            m.next = "R_ROM_WAIT"
                        with m.Case(2):
                            m.next = "R_STATUS_FIELDS"
                        with m.Case(3):
                            m.next = "R_FETCH"
            with m.State("R_ROM_WAIT"):     # the ROM (block RAM) answers a cycle later
                m.next = "R_ROM"
            with m.State("R_ROM"):
                last = rom_idx == len(self._descriptor) - 1
                m.d.comb += [tx_valid.eq(1), tx_data.eq(rom_r.data), tx_last.eq(last)]
                with m.If(adv):
                    m.d.sync += rom_idx.eq(rom_idx + 1)
                    with m.If(last):
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "R_ROM_WAIT"
            with m.State("R_STATUS_FIELDS"):
                last = sidx == status_bytes - 1
                m.d.comb += [tx_valid.eq(1), tx_data.eq(sreg[:8]), tx_last.eq(last)]
                with m.If(adv):
                    m.d.sync += [sreg.eq(sreg >> 8), sidx.eq(sidx + 1)]
                    with m.If(last):
                        m.next = "IDLE"
            with m.State("R_FETCH"):
                m.next = "R_LATCH"
            with m.State("R_LATCH"):
                m.d.sync += [acc.eq(mem_data), bidx.eq(0)]
                m.next = "R_WORD"
            with m.State("R_WORD"):
                word_done = bidx == hwb - 1
                last = word_done & (remaining == 1)
                m.d.comb += [tx_valid.eq(1), tx_data.eq(acc.word_select(bidx, 8)),
                             tx_last.eq(last)]
                with m.If(adv):
                    m.d.sync += bidx.eq(bidx + 1)
                    with m.If(word_done):
                        m.d.sync += [host_addr.eq(host_addr + 1), remaining.eq(remaining - 1)]
                        with m.If(last):
                            m.next = "IDLE"
                        with m.Else():
                            m.next = "R_FETCH"
            with m.State("W_READ"):
                m.next = "W_BYTE"
            with m.State("W_BYTE"):
                m.d.sync += [acc.word_select(bidx, 8).eq(buf_r.data), ptr.eq(ptr + 1),
                             bidx.eq(bidx + 1)]
                with m.If(bidx == hwb - 1):
                    m.next = "W_COMMIT"
                with m.Else():
                    m.next = "W_READ"
            with m.State("W_COMMIT"):
                with m.Switch(hmem):
                    for n in range(n_in):
                        with m.Case(n):
                            m.d.comb += [wports[n].en.eq(1), wports[n].addr.eq(host_addr),
                                         wports[n].data.eq(acc)]
                m.d.sync += [host_addr.eq(host_addr + 1), remaining.eq(remaining - 1),
                             bidx.eq(0)]
                with m.If(remaining == 1):
                    respond(Status.OK)
                with m.Else():
                    m.next = "W_READ"

        m.d.comb += self.error.eq(status != Status.OK)
        return m

    def _check(self, m, v):
        """CHECK state of a good frame: validate the command's arguments; respond or start it.
        ``v`` holds the signals of :meth:`elaborate`."""
        depth, n_in = self._depth, len(self._inputs)
        cmd, plen, arg, addr16 = v["cmd"], v["plen"], v["arg"], v["addr16"]
        respond, wbytes = v["respond"], v["wbytes"]
        feeding, host_addr, remaining = v["feeding"], v["host_addr"], v["remaining"]
        hmem, hwb, bidx, ptr = v["hmem"], v["hwb"], v["bidx"], v["ptr"]
        count16 = Cat(arg[3], arg[4])
        with m.Switch(cmd):
            with m.Case(Command.IDENTIFY):
                with m.If(plen != 0):
                    respond(Status.BAD_LENGTH)
                with m.Else():
                    respond(Status.OK, 1)
            with m.Case(Command.STATUS):
                with m.If(plen != 0):
                    respond(Status.BAD_LENGTH)
                with m.Else():
                    c = v["counters"]
                    have_out = v["seen_in"] & v["seen_out"]
                    cycles = Mux(have_out, v["t_last"] - v["t_first"] + 1, 0)
                    flags = Cat(v["running"], ~feeding & v["running"], v["overflow"],
                                Const(0, 5))
                    fields = [flags, v["count"], v["fed"][0], cycles[:32], c["bad_frame"],
                              c["bad_crc"], c["dropped"], c["uart_errors"], *v["outs"]]
                    m.d.sync += v["sreg"].eq(Cat(*fields))
                    respond(Status.OK, 2)
            with m.Case(Command.RESET):
                with m.If(plen != 0):
                    respond(Status.BAD_LENGTH)
                with m.Else():
                    m.d.comb += [v["unit_rst"].eq(1), v["stop_run"].eq(1)]
                    respond(Status.OK)
            with m.Case(Command.START):
                count = Cat(arg[0], arg[1])
                with m.If(plen != 2):
                    respond(Status.BAD_LENGTH)
                with m.Elif((count == 0) | (count > depth)):
                    respond(Status.BAD_ADDRESS)
                with m.Elif(feeding):
                    respond(Status.BUSY)
                with m.Else():
                    m.d.comb += [v["unit_rst"].eq(1), v["start_run"].eq(1)]
                    m.d.sync += v["count"].eq(count)
                    respond(Status.OK)
            with m.Case(Command.READ):
                with m.If(plen != 5):
                    respond(Status.BAD_LENGTH)
                with m.Elif((arg[0] >= len(wbytes)) | (count16 == 0) |
                            (addr16 + count16 > depth)):
                    respond(Status.BAD_ADDRESS)
                with m.Elif(feeding & (arg[0] < n_in)):
                    respond(Status.BUSY)
                with m.Else():
                    m.d.sync += [host_addr.eq(addr16), remaining.eq(count16), hmem.eq(arg[0])]
                    with m.Switch(arg[0]):
                        for n, wb in enumerate(wbytes):
                            with m.Case(n):
                                m.d.sync += hwb.eq(wb)
                    respond(Status.OK, 3)
            with m.Case(Command.WRITE):
                data_len = plen - 5
                words = count16
                with m.If(plen < 5):
                    respond(Status.BAD_LENGTH)
                with m.Elif(arg[0] >= n_in):
                    respond(Status.BAD_ADDRESS)
                with m.Else():
                    with m.Switch(arg[0]):
                        for n in range(n_in):
                            wb = wbytes[n]
                            with m.Case(n):
                                with m.If((words == 0) | (data_len != words * wb)):
                                    respond(Status.BAD_LENGTH)
                                with m.Elif(addr16 + words > depth):
                                    respond(Status.BAD_ADDRESS)
                                with m.Elif(feeding):
                                    respond(Status.BUSY)
                                with m.Else():
                                    m.d.sync += [host_addr.eq(addr16), remaining.eq(words),
                                                 hmem.eq(n), hwb.eq(wb), bidx.eq(0),
                                                 ptr.eq(_WRITE_DATA)]
                                    m.next = "W_READ"
            with m.Default():
                respond(Status.UNKNOWN_COMMAND)


class HostLinkTop(Component):
    """The whole board top except the I/O buffers: UART receiver → :class:`LinkCore` (with
    ``unit`` inside) → UART transmitter.

    Parameters: ``unit`` (Component), ``unit_name`` and ``params`` (for IDENTIFY), ``clk_hz``,
    ``baud`` (the divisor is ``round(clk_hz / baud)``, at least 4), ``depth``, ``max_frame``.
    Ports: ``rx`` (In(1), idle high), ``tx`` (Out(1), idle high), ``busy``, ``error``."""

    def __init__(self, unit, unit_name, params=None, *, clk_hz, baud=115200, depth=256,
                 max_frame=512):
        self._divisor = uart_divisor(clk_hz, baud)
        self._desc = describe(unit, unit_name, dict(params or {}), depth, clk_hz=clk_hz,
                              baud=baud, max_frame=max_frame)
        self._core = LinkCore(unit, _descriptor_bytes(self._desc), depth=depth,
                              max_frame=max_frame)
        self._unit = unit
        super().__init__({"rx": In(1, init=1), "tx": Out(1, init=1), "busy": Out(1),
                          "error": Out(1)})

    @property
    def descriptor(self):
        return self._desc

    @property
    def divisor(self):
        return self._divisor

    @property
    def unit(self):
        return self._unit

    @property
    def core(self):
        return self._core

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = rx = UartRx(self._divisor)
        m.submodules.uart_tx = tx = UartTx(self._divisor)
        m.submodules.link = core = self._core
        m.d.comb += [rx.rx.eq(self.rx), self.tx.eq(tx.tx), core.uart_error.eq(rx.error),
                     self.busy.eq(core.busy), self.error.eq(core.error)]
        connect(m, rx.o, core.rx)
        connect(m, core.tx, tx.i)
        return m
