"""The host-link engine around any registered unit (protocol: :mod:`fhe_hw.link.protocol`).

:class:`LinkCore` works on bytes (its ``rx`` takes what a UART receiver delivers, its ``tx``
feeds a UART transmitter); :class:`HostLinkTop` adds the UART pins and is the whole board top
except the I/O buffers, which is what the host driver's simulated transport runs.

The core is five parts, each a Component, connected through the signatures of
:mod:`fhe_hw.link.plan`:

* the frame receiver (:class:`~fhe_hw.link.slip.FrameReceiver`) unstuffs a request into the
  frame buffer while it computes its CRC, and judges the frame after its ``END``;
* the command executor (:class:`~fhe_hw.link.executor.CommandExecutor`) reads the header,
  acts on the request checker's verdict and writes a WRITE's words;
* the word buffer (:class:`~fhe_hw.link.memories.WordBuffer`) moves words between frame bytes
  and the memories;
* the run controller (:class:`~fhe_hw.link.memories.RunController`) holds the unit's memories
  and streams a run through the unit;
* the responder (:class:`~fhe_hw.link.responder.ResponseTransmitter`) sends each response.

Robustness: a frame is unstuffed into a frame buffer while its CRC is computed; only
after the closing ``END`` is it judged (bad escape, too short, too long, bad CRC) and only a good
frame whose arguments all check is executed, so no partial or corrupted frame can write a
memory. The receiver never waits for anything but bytes: a frame that never ends is closed by
the next ``END`` (every frame the host sends starts with one) and answered with an error; bytes
that arrive while a command executes or its response is sent are dropped up to the next ``END``
and counted.
"""

import json

from amaranth import Module, ResetInserter, unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out, connect, flipped

from ..component import Component
from ..units import get_unit, units
from .executor import CommandExecutor
from .memories import RunController, WordBuffer
from .plan import LinkPlan, stream_ports
from .protocol import STATUS_FIELDS
from .responder import ResponseTransmitter
from .slip import FrameReceiver
from .uart import UartRx, UartTx, uart_divisor

__all__ = ["LinkCore", "HostLinkTop", "stream_ports", "describe"]


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
    ``depth`` (1..65535), ``max_frame`` (largest unstuffed request in bytes, 16..4096); they
    make a :class:`~fhe_hw.link.plan.LinkPlan` (:attr:`plan`).

    Ports: ``rx`` (always-ready byte stream in; a byte is taken in its valid cycle), ``tx`` (byte
    stream out, SLIP frames), ``uart_error`` (In(1): counted as ``uart_errors``), ``busy``
    (Out(1): a run is feeding the unit), ``error`` (Out(1): the last response was an error).

    Raises ``ValueError`` for a unit without input and output streams or a bad depth/max_frame,
    ``TypeError`` for a depth, max_frame or descriptor of the wrong type.
    """

    def __init__(self, unit, descriptor, *, depth=256, max_frame=512):
        self._plan = LinkPlan.of(unit, descriptor, depth=depth, max_frame=max_frame)
        self._unit = unit
        super().__init__({"rx": In(stream.Signature(unsigned(8), always_ready=True)),
                          "tx": Out(stream.Signature(unsigned(8))), "uart_error": In(1),
                          "busy": Out(1), "error": Out(1)})

    @property
    def plan(self):
        return self._plan

    @property
    def depth(self):
        return self._plan.depth

    @property
    def max_frame(self):
        return self._plan.max_frame

    def elaborate(self, platform):
        m = Module()
        plan = self._plan
        m.submodules.receiver = receiver = FrameReceiver(plan)
        m.submodules.executor = executor = CommandExecutor(plan)
        m.submodules.words = words = WordBuffer(plan)
        m.submodules.run = run = RunController(plan)
        m.submodules.responder = responder = ResponseTransmitter(plan)
        m.submodules.unit = ResetInserter({"sync": run.unit_rst})(self._unit)
        connect(m, flipped(self.rx), receiver.rx)
        connect(m, receiver.frame, executor.frame)
        connect(m, receiver.buffer, executor.buffer)
        connect(m, executor.run, run.run)
        connect(m, executor.words, words.fill)
        connect(m, responder.words, words.drain)
        connect(m, words.memory, run.host)
        connect(m, executor.response, responder.response)
        connect(m, responder.tx, flipped(self.tx))
        for name, _ in plan.mems:
            connect(m, getattr(run.unit, name), getattr(self._unit, name))
        counters = {"bad_frame": executor.bad_frame, "bad_crc": executor.bad_crc,
                    "dropped": receiver.dropped, "uart_errors": receiver.uart_errors,
                    "flags": run.flags, "count": run.count, "fed": run.fed,
                    "cycles": run.cycles}
        m.d.comb += [getattr(responder.fields, name).eq(counters[name])
                     for name, _ in STATUS_FIELDS]
        m.d.comb += [responder.fields.outputs.eq(run.collected),
                     receiver.uart_error.eq(self.uart_error),
                     receiver.idle.eq(executor.idle & ~responder.busy),
                     executor.feeding.eq(run.feeding),
                     self.busy.eq(run.feeding), self.error.eq(responder.error)]
        return m


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
