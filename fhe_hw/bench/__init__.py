"""Software baselines: what a user would run instead of the hardware, timed on this machine
(GMP, FLINT, NumPy: :mod:`.baselines`; OpenFHE's C++ library: :mod:`.openfhe`; the median of
repeated runs: :mod:`.timing`). The ``bench`` extra installs the libraries; the report
(:mod:`fhe_hw.report`) and the results tables show the timings beside the hardware's."""
