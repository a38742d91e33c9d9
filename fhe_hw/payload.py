"""A stream payload as one integer: :func:`pack` a value (an int, a dict for a struct layout, a
list for an array layout) into the word a payload of some shape holds, :func:`unpack` it back.

The engines use it for the constants they bake in; the simulators (:mod:`fhe_hw.sim.pysim`)
and the UART link's host (:mod:`fhe_hw.link.host`) for every transfer.
"""

from amaranth import Shape
from amaranth.lib import data

__all__ = ["pack", "unpack", "payload_value"]


def pack(shape, value):
    """Pack ``value`` into the integer that a payload of ``shape`` holds: an int for a plain
    shape, a dict for a struct layout, a list for an array layout (lanes), fields LSB-first in
    declaration order."""
    if isinstance(shape, data.Layout):
        word = 0
        for key, field in shape:
            word |= pack(field.shape, value[key]) << field.offset
        return word
    width = Shape.cast(shape).width
    if not isinstance(value, int) or not 0 <= value < 1 << width:
        raise ValueError(f"payload field must be an int of {width} bits, not {value!r}")
    return value


def unpack(shape, word):
    """Inverse of :func:`pack`."""
    if isinstance(shape, data.ArrayLayout):
        return [unpack(f.shape, word >> f.offset) for _, f in shape]
    if isinstance(shape, data.Layout):
        return {key: unpack(f.shape, word >> f.offset) for key, f in shape}
    return word & ((1 << Shape.cast(shape).width) - 1)


def payload_value(stream):
    """(the payload as a plain Value, its shape for pack/unpack)."""
    payload = stream.payload
    if isinstance(payload, data.View):
        return payload.as_value(), data.Layout.cast(payload.shape())
    return payload, payload.shape()
