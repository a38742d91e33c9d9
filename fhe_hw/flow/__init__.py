"""From a unit to measured hardware: out-of-context synthesis with Yosys and nextpnr
(:mod:`.synth`), board bitstreams (:mod:`.build`), the names and cache keys of build directories
(:mod:`.builddir`), table rows (:mod:`.rows`) and design-space exploration (:mod:`.explore`)."""
