"""The library of parts the units are built from, each written once.

* :mod:`fhe_hw.lib.delay` — delay lines: a register chain
  (:func:`~fhe_hw.lib.delay.register_delay`), an exact delay that uses a memory when long
  (:class:`~fhe_hw.lib.delay.DelayLine`, :func:`~fhe_hw.lib.delay.delay_line`), and ``valid``
  with riders beside a fixed-latency unit (:func:`~fhe_hw.lib.delay.delay`).
* :mod:`fhe_hw.lib.rom` — constant tables: a ROM's read ports
  (:func:`~fhe_hw.lib.rom.rom_ports`) and a table of named fields (:class:`~fhe_hw.lib.rom.Rom`).
* :mod:`fhe_hw.lib.bram` — block RAMs with the block RAM's own output register
  (:class:`~fhe_hw.lib.bram.RegisteredRAM`, :class:`~fhe_hw.lib.bram.RegisteredROM`).
* :mod:`fhe_hw.lib.stream` — stream helpers: a skid buffer, a credit-counted queue and the
  clock enable that stalls a pipeline on back-pressure.

Each part documents its ports and latency; ``tests/test_lib_*.py`` test each from reset.
"""
