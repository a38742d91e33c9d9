"""From a unit to measured hardware: out-of-context synthesis with Yosys and nextpnr
(:mod:`.synth`), board bitstreams (:mod:`.build`), running the tools (:mod:`.run`), table rows
(:mod:`.rows`) and design-space exploration (:mod:`.explore`). The names and cache keys of build
directories are :mod:`fhe_hw.builddir`'s, the tools' paths and versions :mod:`fhe_hw.tools`'."""
