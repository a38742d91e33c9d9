"""The host driver of the board link (protocol: :mod:`fhe_hw.link.protocol`).

:class:`Host` speaks the protocol over a *transport*: :class:`SerialTransport` (pyserial, a real
board) or :class:`SimTransport` (the Amaranth simulation of the whole board top,
:class:`fhe_hw.link.HostLinkTop`, driven through its UART pins bit by bit, or of its
:class:`~fhe_hw.link.LinkCore` byte by byte for fast bulk tests). Both have the same API, so a
test runs the full path host → UART bits → unit → UART bits → host.

A transport has ``write(data)``, ``read(timeout)`` (the bytes that arrive within ``timeout``
seconds of device time; may return early once some bytes arrived), ``clock()`` (device seconds
now) and ``default_timeout``.

:func:`run_vectors` sends test vectors of a registered unit to a device and checks the results
against the golden model (``fhe-hw run``).
"""

import json
import random
import time

from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from ..payload import pack, payload_value, unpack
from ..sim.vectors import vectors_for
from ..units import get_unit
from .protocol import (
    STATUS_FIELDS,
    Command,
    FrameError,
    Response,
    SlipDecoder,
    Status,
    decode_response,
    encode_request,
    word_bytes,
)

__all__ = ["Host", "LinkError", "SerialTransport", "SimTransport", "run_vectors", "rebuild_unit"]


class LinkError(RuntimeError):
    """The device answered with an error status (``status`` attribute) or not at all."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


# --- transports -----------------------------------------------------------------------------

class SerialTransport:
    """A real serial port through pyserial (``pip install pyserial``)."""

    default_timeout = 1.0

    def __init__(self, port, baud=115200):
        import serial  # pyserial; imported here so simulation needs no serial port support

        self._port = serial.Serial(port, baud, timeout=0.05)
        self._port.reset_input_buffer()

    def write(self, data):
        self._port.write(bytes(data))
        self._port.flush()

    def read(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = self._port.read(self._port.in_waiting or 1)
            if data:
                return data
        return b""

    def clock(self):
        return time.monotonic()

    def wait(self, seconds):
        time.sleep(seconds)

    def close(self):
        self._port.close()


class SimTransport:
    """The Amaranth simulation of ``top`` (a :class:`~fhe_hw.link.HostLinkTop`).

    ``level="uart"`` drives ``top.rx`` and samples ``top.tx`` bit by bit at the top's baud rate
    (the full path); ``level="byte"`` simulates ``top.core`` alone and hands it one byte per
    ``gap + 1`` cycles (bulk tests: about ``10 * divisor`` times fewer cycles per byte).
    Device time runs at the top's ``clk_hz``. ``vcd`` writes a waveform (slow; debugging)."""

    def __init__(self, top, *, level="uart", gap=0):

        if level not in ("uart", "byte"):
            raise ValueError(f"level must be 'uart' or 'byte', not {level!r}")
        self.top, self.level, self._gap = top, level, gap
        desc = top.descriptor
        self._period = 1 / desc["clk_hz"]
        self._div = top.divisor
        self._out, self._in = [], bytearray()   # host → device items, device → host bytes
        self._cycles = 0
        dut = top if level == "uart" else top.core
        if level == "byte":
            Fragment.get(top, None)     # only its LinkCore is simulated: elaborated, so used
        self._sim = Simulator(dut)
        self._sim.add_clock(self._period)
        if level == "uart":
            self._sim.add_testbench(self._uart_rx, background=True)
            self._sim.add_testbench(self._uart_tx, background=True)
        else:
            self._sim.add_testbench(self._byte_rx, background=True)
            self._sim.add_testbench(self._byte_tx, background=True)
        per_byte = 10 * self._div if level == "uart" else 1 + gap
        wire = 2 * (desc["max_frame"] + 8) + 2
        # a whole request and its (chunked) response, at 1.5x, plus the command's own cycles
        self.default_timeout = (3 * wire * per_byte + 20000) * self._period

    @property
    def cycles(self):
        return self._cycles

    # testbenches: _out holds host → device bytes, _in device → host bytes
    async def _uart_rx(self, ctx):
        bit = self._div * self._period
        while True:
            if not self._out:
                await ctx.delay(bit)
                continue
            byte = self._out.pop(0)
            levels = byte if isinstance(byte, tuple) else \
                [0] + [(byte >> n) & 1 for n in range(8)] + [1]
            for level in levels:
                ctx.set(self.top.rx, level)
                await ctx.delay(bit)

    async def _uart_tx(self, ctx):
        bit = self._div * self._period
        while True:
            await ctx.negedge(self.top.tx)
            await ctx.delay(bit / 2)
            byte = 0
            for n in range(8):
                await ctx.delay(bit)
                byte |= ctx.get(self.top.tx) << n
            await ctx.delay(bit)
            if ctx.get(self.top.tx):
                self._in.append(byte)

    async def _byte_rx(self, ctx):
        core = self.top.core
        while True:
            if self._out:
                ctx.set(core.rx.payload, self._out.pop(0))
                ctx.set(core.rx.valid, 1)
                await ctx.tick()
                ctx.set(core.rx.valid, 0)
                for _ in range(self._gap):
                    await ctx.tick()
            else:  # idle: sleep 16 cycles in one event rather than 16 ticks
                await ctx.delay(15.5 * self._period)
                await ctx.tick()

    async def _byte_tx(self, ctx):
        core = self.top.core
        ctx.set(core.tx.ready, 1)
        while True:
            if not ctx.get(core.tx.valid):
                await ctx.changed(core.tx.valid)
                continue
            payload = ctx.get(core.tx.payload)
            await ctx.tick()
            self._in.append(payload)

    def _run(self, cycles):
        self._cycles += cycles
        self._sim.run_until(self._cycles * self._period)

    def write(self, data):
        self._out += list(bytes(data))

    def write_bits(self, levels):
        """UART level only: drive ``rx`` with these levels, one bit period each (for framing
        errors and glitches)."""
        if self.level != "uart":
            raise ValueError("write_bits needs level 'uart'")
        self._out.append(tuple(levels))

    def read(self, timeout):
        """Run until some bytes arrived and the line has been quiet for 2 byte times, or
        ``timeout`` device seconds passed; return the bytes."""
        step = 2 * 10 * self._div if self.level == "uart" else 16
        limit = self._cycles + int(timeout / self._period)
        while self._cycles < limit:
            seen = len(self._in)
            self._run(step)
            if self._in and len(self._in) == seen and not self._out:
                break
        data, self._in = bytes(self._in), bytearray()
        return data

    def clock(self):
        return self._cycles * self._period

    def wait(self, seconds):
        self._run(max(1, int(seconds / self._period)))

    def close(self):
        pass


# --- the driver -------------------------------------------------------------------------------

class Host:
    """Commands of the link protocol over ``transport``.

    ``timeout`` (device seconds per response; default the transport's), ``retries`` (times a
    request is sent again after no answer or a BAD_FRAME/BAD_CRC answer to it). Error statuses
    raise :class:`LinkError`; responses that are garbled or belong to another request are
    skipped (``skipped`` counts them)."""

    def __init__(self, transport, *, timeout=None, retries=2):
        self.transport = transport
        self.timeout = transport.default_timeout if timeout is None else timeout
        self.retries = retries
        self.skipped = 0
        self._seq = 0
        self._decoder = SlipDecoder()
        self._pending = []
        self._desc = None

    def transact(self, cmd, args=b""):
        """Send one request and return the payload of its OK response."""
        for _ in range(self.retries + 1):
            self._seq = (self._seq + 1) & 0xFF
            self.transport.write(encode_request(self._seq, cmd, args))
            response = self._receive(self._seq, cmd)
            if response is None or response.status in (Status.BAD_FRAME, Status.BAD_CRC):
                continue
            if response.status != Status.OK:
                raise LinkError(f"{Command(cmd).name} failed: {response.status.name}",
                                response.status)
            return response.payload
        what = "no response" if response is None else response.status.name
        raise LinkError(f"{Command(cmd).name} failed after {self.retries + 1} tries: {what}",
                        None if response is None else response.status)

    def _receive(self, seq, cmd):
        deadline = self.transport.clock() + self.timeout
        while True:
            while self._pending:
                body, ok = self._pending.pop(0)
                try:
                    response = decode_response(body) if ok else None
                except FrameError:
                    response = None
                if response is not None and ((response.seq, response.cmd) == (seq, cmd) or
                                             response.status in (Status.BAD_FRAME,
                                                                 Status.BAD_CRC)):
                    # one request is outstanding: a garbled-frame answer is most likely its
                    return response
                self.skipped += 1
            left = deadline - self.transport.clock()
            if left <= 0:
                return None
            self._pending += self._decoder.feed(self.transport.read(left))

    def drain(self, seconds=None):
        """Read and discard whatever arrives within ``seconds`` (default: the timeout)."""
        data = self.transport.read(self.timeout if seconds is None else seconds)
        self._pending.clear()
        frames = self._decoder.feed(data)
        return frames

    # commands
    def identify(self):

        self._desc = json.loads(self.transact(Command.IDENTIFY))
        return self._desc

    @property
    def descriptor(self):
        return self._desc if self._desc is not None else self.identify()

    def _mem(self, mem):
        mems = self.descriptor["mems"]
        if isinstance(mem, str):
            found = [m for m in mems if m["port"] == mem]
            if not found:
                raise ValueError(f"memory must be one of {[m['port'] for m in mems]}, "
                                 f"not {mem!r}")
            return found[0]
        return mems[mem]

    def write(self, mem, addr, words):
        """Write ``words`` (ints) into input memory ``mem`` (id or port name) from ``addr``,
        in as many frames as the device's ``max_frame`` needs."""
        info = self._mem(mem)
        wb = word_bytes(info["bits"])
        per_frame = max(1, (self.descriptor["max_frame"] - 9) // wb)
        for start in range(0, len(words), per_frame):
            chunk = words[start:start + per_frame]
            data = b"".join(w.to_bytes(wb, "little") for w in chunk)
            self.transact(Command.WRITE, bytes([info["id"]]) + (addr + start).to_bytes(2, "little")
                          + len(chunk).to_bytes(2, "little") + data)

    def read(self, mem, addr, count):
        """``count`` words of memory ``mem`` from ``addr``."""
        info = self._mem(mem)
        wb = word_bytes(info["bits"])
        per_frame = max(1, (self.descriptor["max_frame"] - 7) // wb)
        words = []
        for start in range(0, count, per_frame):
            n = min(per_frame, count - start)
            data = self.transact(Command.READ, bytes([info["id"]]) +
                                 (addr + start).to_bytes(2, "little") + n.to_bytes(2, "little"))
            if len(data) != n * wb:
                raise LinkError(f"READ must return {n * wb} bytes, not {len(data)}")
            words += [int.from_bytes(data[k:k + wb], "little") for k in range(0, len(data), wb)]
        return words

    def start(self, count):
        self.transact(Command.START, count.to_bytes(2, "little"))

    def status(self):
        """STATUS as a dict: ``flags``, ``count``, ``fed``, ``cycles``, error counters and
        ``outputs`` (words collected per output memory)."""

        payload = self.transact(Command.STATUS)
        return Response(0, 0, Status.OK, payload).fields(STATUS_FIELDS)

    def reset(self):
        self.transact(Command.RESET)

    def run(self, inputs, expected, *, timeout=None, poll=None):
        """Write ``inputs`` ({input port: [words]}, equal lengths), START, wait until every
        output port ``p`` collected ``expected[p]`` words, and return ({port: [words]},
        status). ``LinkError`` on a time-out (``timeout`` device seconds, default 20 response
        timeouts)."""
        lengths = {len(w) for w in inputs.values()}
        if len(lengths) != 1:
            raise ValueError(f"inputs must have equal lengths, not {sorted(lengths)}")
        for port, words in inputs.items():
            self.write(port, 0, words)
        self.start(lengths.pop())
        outs = [m for m in self.descriptor["mems"] if m["dir"] == "out"]
        deadline = self.transport.clock() + (20 * self.timeout if timeout is None else timeout)
        poll = self.timeout / 4 if poll is None else poll
        while True:
            status = self.status()
            if all(n >= expected.get(m["port"], 0)
                   for m, n in zip(outs, status["outputs"])):
                break
            if self.transport.clock() > deadline:
                raise LinkError(f"run timed out with status {status}")
            self.transport.wait(poll)
        results = {port: self.read(port, 0, n) for port, n in expected.items() if n}
        return results, status

    def run_payloads(self, unit, inputs, expected_counts, **kw):
        """:meth:`run` with payload values (ints, dicts for structs, lists for lanes) packed and
        unpacked with the layouts of ``unit`` (a locally built instance of the device's unit)."""
        shapes = {name: payload_value(getattr(unit, name))[1]
                  for name in {**inputs, **expected_counts}}
        words = {p: [pack(shapes[p], v) for v in vs] for p, vs in inputs.items()}
        results, status = self.run(words, expected_counts, **kw)
        return {p: [unpack(shapes[p], w) for w in ws] for p, ws in results.items()}, status


def rebuild_unit(descriptor):
    """Build, on the host, the unit a device describes (its IDENTIFY descriptor), so payload
    layouts and golden models are those of the same parameters."""
    unit = get_unit(descriptor["unit"])
    params = dict(descriptor["params"])
    for opt in unit.options:
        value = params.get(opt.dest)
        if isinstance(value, str) and opt.type is not str:
            params[opt.dest] = opt.type(value)
    component = unit.build(**params)
    Fragment.get(component, None)   # elaborated once, so no "never used" warnings
    return component


def run_vectors(host, *, count=64, seed=1, out=print, unit=None):
    """Identify the device, build its unit locally (or use ``unit``, an instance with the same
    parameters), send ``count`` random and edge vectors (at most the memory depth), and
    compare every result with the golden model. Returns the number of mismatches."""
    desc = host.identify()
    unit = rebuild_unit(desc) if unit is None else unit
    rng = random.Random(f"{seed}:{desc['unit']}")
    vectors = vectors_for(desc["unit"])(unit, rng, count)
    inputs, expected = vectors.inputs, vectors.expected
    depth = min(m["depth"] for m in desc["mems"])
    n = len(next(iter(inputs.values())))
    if n > depth:
        inputs = {p: v[:depth] for p, v in inputs.items()}
        expected = {p: v[:depth] for p, v in expected.items()} if desc.get("latency") is not None \
            else expected
    started = host.transport.clock()
    got, status = host.run_payloads(unit, inputs, {p: len(v) for p, v in expected.items()})
    seconds = host.transport.clock() - started
    bad = 0
    for port, want in expected.items():
        for k, (w, g) in enumerate(zip(want, got[port])):
            if w != g:
                if not bad:
                    out(f"first mismatch: port {port} index {k} (seed {seed}): expected {w}, "
                        f"got {g}")
                bad += 1
    total = sum(len(v) for v in expected.values())
    out(f"{desc['unit']} {desc['params']}: {total - bad} of {total} results match the golden "
        f"model; {status['cycles']} cycles first input to last output; {seconds:.3f} s")
    return bad
