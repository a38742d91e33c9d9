"""The link core's plan and the signatures between its parts (:mod:`fhe_hw.link.core`).

:class:`LinkPlan` holds what the link core is built from, the unit's streams, the IDENTIFY
descriptor, the memory depth and the largest frame, and refuses bad values before any hardware
exists. The functions below give the ``amaranth.lib.wiring`` signatures through which the parts
(receiver, executor, responder, word buffer, run controller) are connected, each from the side
that drives its control signals.
"""

from dataclasses import dataclass

from amaranth import Shape, unsigned
from amaranth.hdl import Value
from amaranth.lib import data, enum, stream
from amaranth.lib.memory import ReadPort
from amaranth.lib.wiring import In, Out, Signature
from amaranth.utils import ceil_log2

from ..params import require_int
from ..plan import Plan
from .protocol import STATUS_FIELDS, word_bytes

__all__ = ["LinkPlan", "Payload", "Action", "stream_ports", "frame_signature",
           "buffer_signature", "run_signature", "access_layout", "fill_signature",
           "drain_signature", "memory_signature", "response_signature", "status_layout",
           "HEADER", "WRITE_DATA"]

HEADER = 7      # seq, cmd and up to five argument bytes are read before a command is checked
WRITE_DATA = 7  # offset of the first data byte of a WRITE (seq, cmd, mem, addr:2, count:2)


class Payload(enum.Enum, shape=2):
    """What follows the status byte of a response."""
    NONE = 0
    DESCRIPTOR = 1
    STATUS = 2
    WORDS = 3


class Action(enum.Enum, shape=3):
    """What the executor does with a checked request besides answering it."""
    NONE = 0
    BAD_FRAME = 1   # count it
    BAD_CRC = 2     # count it
    STATUS = 3      # take a snapshot of the status fields
    RESET = 4
    START = 5
    READ = 6        # load the word buffer
    WRITE = 7       # load the word buffer and write the words, then answer


def stream_ports(unit):
    """``[(name, flow, interface, bits)]`` for every stream member of ``unit``'s signature, in
    signature order; ``flow`` is ``In`` for a stream the unit consumes."""
    ports = []
    for name, member in unit.signature.members.items():
        if member.is_signature and isinstance(member.signature, stream.Signature):
            iface = getattr(unit, name)
            ports.append((name, member.flow, iface, len(Value.cast(iface.payload))))
    return ports


@dataclass(frozen=True)
class LinkPlan(Plan):
    """The parameters of :class:`~fhe_hw.link.LinkCore`, checked in ``__post_init__``.

    Parameters
    ----------
    inputs, outputs : tuple of (str, stream.Signature)
        The unit's input and output streams, in signature order; each gets a memory, ids in
        the order inputs then outputs. Both must be non-empty.
    descriptor : bytes
        The IDENTIFY response, not empty.
    depth : int
        Words per memory, 1..65535.
    max_frame : int
        The largest unstuffed request in bytes, 16..4096.
    """

    inputs: tuple
    outputs: tuple
    descriptor: bytes
    depth: int = 256
    max_frame: int = 512

    def __post_init__(self):
        super().__post_init__()
        require_int("depth", self.depth)
        require_int("max_frame", self.max_frame)
        if not 1 <= self.depth <= 0xFFFF:
            raise ValueError(f"depth must be in 1..65535, not {self.depth}")
        if not 16 <= self.max_frame <= 4096:
            raise ValueError(f"max_frame must be in 16..4096, not {self.max_frame}")
        for name, ports in (("inputs", self.inputs), ("outputs", self.outputs)):
            if not isinstance(ports, tuple) or not all(
                    isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and
                    isinstance(p[1], stream.Signature) for p in ports):
                raise TypeError(f"{name} must be a tuple of (name, stream.Signature) pairs, "
                                f"not {ports!r}")
        if not self.inputs or not self.outputs:
            names = sorted(name for name, _ in self.inputs + self.outputs)
            raise ValueError(f"unit must have input and output streams, not {names}")
        if not isinstance(self.descriptor, bytes):
            raise TypeError(f"descriptor must be bytes, not {type(self.descriptor).__name__}")
        if not self.descriptor:
            raise ValueError("descriptor must not be empty")

    @classmethod
    def of(cls, unit, descriptor, *, depth=256, max_frame=512):
        """The plan of a link core around ``unit`` (a Component with stream members)."""
        members = unit.signature.members
        streams = {flow: tuple((name, members[name].signature.flip() if flow == In else
                                members[name].signature)
                               for name, f, _, _ in stream_ports(unit) if f == flow)
                   for flow in (In, Out)}
        return cls(streams[In], streams[Out], descriptor, depth, max_frame)

    @property
    def mems(self):
        """The ``(name, signature)`` of every memory, inputs then outputs (the memory ids)."""
        return self.inputs + self.outputs

    @property
    def bits(self):
        """The payload width of each memory's stream."""
        return tuple(Shape.cast(sig.members["payload"].shape).width for _, sig in self.mems)

    @property
    def word_bytes(self):
        """The bytes of a word of each memory on the wire."""
        return tuple(word_bytes(b) for b in self.bits)

    @property
    def acc_bytes(self):
        """The bytes of the widest word."""
        return max(self.word_bytes)


def frame_signature(plan):
    """A received frame, from the receiver: ``closed`` (a cycle: a frame ended; the others hold
    until the next) ``length`` (unstuffed bytes), ``bad`` (a bad escape, too short or too
    long), ``crc_ok``."""
    return Signature({"closed": Out(1), "length": Out(range(plan.max_frame + 1)),
                      "bad": Out(1), "crc_ok": Out(1)})


def buffer_signature(plan):
    """The frame buffer's read port (the data a cycle after the address), from the buffer."""
    return ReadPort.Signature(addr_width=ceil_log2(plan.max_frame), shape=unsigned(8))


def run_signature():
    """Run control, from the executor: ``start`` a run of ``count`` words, ``stop`` it; both
    reset the unit."""
    return Signature({"start": Out(1), "count": Out(16), "stop": Out(1)})


def access_layout(plan):
    """A READ's or WRITE's memory, first address, words and bytes per word."""
    return data.StructLayout({"mem": range(len(plan.mems)), "addr": unsigned(16),
                              "count": unsigned(16), "word_bytes": range(plan.acc_bytes + 1)})


def fill_signature(plan):
    """The word buffer as the executor uses it: ``load`` an ``access``, ``put`` a ``byte``
    into the word, ``commit`` the word to its memory; ``word_done`` (the byte is the word's
    last), ``last`` (the word is the access's last)."""
    return Signature({"load": Out(1), "access": Out(access_layout(plan)), "put": Out(1),
                      "byte": Out(8), "commit": Out(1), "word_done": In(1), "last": In(1)})


def drain_signature():
    """The word buffer as the responder uses it: ``latch`` the memory's word, ``take`` its
    ``byte``; ``word_done`` and ``last`` as in :func:`fill_signature`."""
    return Signature({"latch": Out(1), "take": Out(1), "byte": In(8), "word_done": In(1),
                      "last": In(1)})


def memory_signature(plan):
    """The memories' host port, from the word buffer: ``addr`` and ``mem`` select a word,
    ``rdata`` is it a cycle later, ``write`` stores ``wdata`` (input memories only)."""
    return Signature({"addr": Out(16), "mem": Out(range(len(plan.mems))), "write": Out(1),
                      "wdata": Out(8 * plan.acc_bytes), "rdata": In(8 * plan.acc_bytes)})


def response_signature():
    """A response, from the executor: ``respond`` (a cycle: send ``seq``, ``cmd``,
    ``status`` and ``payload``), ``snapshot`` (a cycle: latch the status fields)."""
    return Signature({"respond": Out(1), "status": Out(8), "payload": Out(Payload),
                      "seq": Out(8), "cmd": Out(8), "snapshot": Out(1)})


def status_layout(plan):
    """The STATUS payload: :data:`~fhe_hw.link.protocol.STATUS_FIELDS`, then the words each
    output memory collected, least significant byte first."""
    fields = {name: unsigned(8 * size) for name, size in STATUS_FIELDS}
    return data.StructLayout({**fields, "outputs": data.ArrayLayout(16, len(plan.outputs))})
