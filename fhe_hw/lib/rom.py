"""Constant tables: ROMs whose words are fixed at elaboration.

* :func:`rom_ports` — an ``amaranth.lib.memory.Memory`` holding constant words and its read
  ports (address in one cycle, data the next: latency 1). The tools map it to LUT RAM or block
  RAM.
* :class:`Rom` — a table of rows of named fields on top of it, or, with ``output_reg``, on a
  :class:`~fhe_hw.lib.bram.RegisteredROM` (latency 2, the block RAM's own output register on
  the ECP5).
"""

from amaranth import unsigned
from amaranth.lib.memory import Memory, ReadPort
from amaranth.utils import ceil_log2

from ..params import require_int
from .bram import RegisteredROM

__all__ = ["rom_ports", "Rom"]


def rom_ports(m, name, width, words, *, read_ports=1, port_names=None):
    """A ROM of ``words`` added to ``m`` as submodule ``name``; returns its ``read_ports``
    read ports (a list).

    Parameters: ``width`` (bits of a word), ``words`` (the contents, address 0 first; at least
    one), ``read_ports`` (at least 1), ``port_names`` (one name per port, whose signals are
    ``<port name>__addr``, ... in the Verilog; default Amaranth's). Each port is an
    ``amaranth.lib.memory`` read port: ``addr`` (in), ``en`` (in, default 1), ``data`` (out)
    the word at the address given one enabled cycle earlier (latency 1; ``data`` is 0 after
    reset until the first read).
    """
    require_int("read_ports", read_ports, minimum=1)
    words = list(words)
    if not words:
        raise ValueError(f"words of ROM {name!r} must hold at least one word, not {words!r}")
    if port_names is not None and len(port_names) != read_ports:
        raise ValueError(f"port_names must name {read_ports} port(s), not {port_names!r}")
    m.submodules[name] = mem = Memory(shape=unsigned(width), depth=len(words), init=words)
    if port_names is None:
        return [mem.read_port() for _ in range(read_ports)]
    signature = ReadPort.Signature(shape=mem.shape, addr_width=ceil_log2(mem.depth))
    return [ReadPort(signature, memory=mem, domain="sync", path=(port,)) for port in port_names]


class Rom:
    """A small constant table, one word of named ``width``-bit fields per address.

    Parameters: ``m`` (the module to add it to, as submodule ``name``), ``rows`` (a list of
    dicts ``{field: int}``, the same fields in every row, field 0 in the low bits), ``width``
    (bits of a field), ``output_reg`` (see below), ``read_ports`` (ports, each read once).

    ``read(addr, port=0)`` drives the port's address and returns ``{field: value}``
    :attr:`latency` cycles later: 1, a :func:`rom_ports` memory with a registered read port
    that the tools map (LUT RAM or block RAM), or with ``output_reg`` 2, a
    :class:`~fhe_hw.lib.bram.RegisteredROM` with its output register (on the ECP5 block RAM
    with the DP16KD's own).
    """

    def __init__(self, m, name, rows, width, *, output_reg=False, read_ports=1):
        self.fields = list(rows[0])
        self.width, self.latency = width, 1 + bool(output_reg)
        words = [sum(row[f] << (i * width) for i, f in enumerate(self.fields)) for row in rows]
        if output_reg:
            m.submodules[name] = rom = RegisteredROM(width * len(self.fields), words,
                                                     read_ports=read_ports, output_reg=True)
            self._ports = [(p.r_addr, p.r_data) for p in rom.ports]
        else:
            self._ports = [(p.addr, p.data) for p in
                           rom_ports(m, name, width * len(self.fields), words,
                                     read_ports=read_ports)]
        self._m = m

    def read(self, addr, port=0):
        r_addr, r_data = self._ports[port]
        self._m.d.comb += r_addr.eq(addr)
        return {f: r_data[i * self.width:(i + 1) * self.width]
                for i, f in enumerate(self.fields)}
