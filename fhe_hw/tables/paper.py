"""Reference rows of the papers, as data, each with its source (paper key and table).

Every value is copied from the paper's text at the table named in ``source``; nothing here is
computed. The papers are numbered 000–004 and cited by the keys of :data:`PAPERS` (full
references on the documentation's papers page). Units are in the keys (``_s``, ``_us``, ``_mhz``).
"""

from dataclasses import dataclass, field

__all__ = ["PaperTable", "PAPERS", "P000_T4", "P000_T6", "table6_cycles", "P001_T3", "P001_T4",
           "P002_64K",
           "P003_T4_6", "P003_T4_7", "P003_T4_8", "P003_T4_9", "P003_T4_10", "P003_T4_11",
           "P004_T2", "P004_T3"]

#: Paper number → citation key.
PAPERS = {"000": "[Cao13]", "001": "[Cao14]", "002": "[Wang13]", "003": "[Kir25]",
          "004": "[Mig16]"}


@dataclass(frozen=True)
class PaperTable:
    """``rows`` of one paper table: ``paper`` (000–004), ``table`` (as printed), ``platform``,
    ``note`` (how to read the values), ``rows`` (a dict keyed by the table's parameters)."""

    paper: str
    table: str
    platform: str
    rows: dict
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def source(self):
        return f"{PAPERS[self.paper]} {self.table}"


_GROUPS = ("toy", "small", "medium", "large")

#: [Cao13] Table 4: synthesis of the super-size multiplier (the k-point Integer-FFT core, its
#: memory buses and addition recovery), per Integer-FFT modulus. Table 5 (CMNT, CNT) repeats
#: these within 0.5 % (it is [Cao14] Table 3 for CMNT).
P000_T4 = PaperTable(
    "000", "Table 4", "Xilinx Virtex-7 (synthesis; DSP48E1 of 3,600)",
    {
        "fermat32": {"fmax_mhz": 304.990, "dsp": 256, "ff": 191151, "lut": 237034},
        "general32": {"fmax_mhz": 254.065, "dsp": 6292, "ff": 213403, "lut": 170919},
        "fermat64": {"fmax_mhz": 179.346, "dsp": 2048, "ff": 955974, "lut": 1214269},
        "solinas64": {"fmax_mhz": 166.450, "dsp": 18496, "ff": 1122826, "lut": 954737},
    },
    note="the rows are in [Cao14] Table 3's modulus order by their identical DSP counts")

#: [Cao13] Table 6 / [Cao14] Table 4: average encryption time (s), Virtex-7 design, per Integer-FFT
#: modulus and group, and the CMNT software of [8]/[9] (Core2 Duo E8500).
P000_T6 = PaperTable(
    "000", "Table 6", "Xilinx Virtex-7 (simulated latency x synthesis frequency)",
    {
        "CMNT 2^32+1": dict(zip(_GROUPS, (0.003, 0.050, 0.872, 15.735))),
        "CMNT 2^32-2^20+1": dict(zip(_GROUPS, (0.003, 0.057, 1.003, 18.110))),
        "CMNT 2^64+1": dict(zip(_GROUPS, (0.000854, 0.0139, 0.239, 4.284))),
        "CMNT 2^64-2^32+1": dict(zip(_GROUPS, (0.000815, 0.0130, 0.221, 3.958))),
        "CMNT software [8]": dict(zip(_GROUPS, (0.05, 0.79, 10.0, 177.0))),
        "CNT 2^32+1": dict(zip(_GROUPS, (0.011, 0.306, 7.586, 159.173))),
        "CNT 2^32-2^20+1": dict(zip(_GROUPS, (0.012, 0.352, 8.731, 183.204))),
        "CNT 2^64+1": dict(zip(_GROUPS, (0.000786, 0.0142, 0.5165, 8.655))),
        "CNT 2^64-2^32+1": dict(zip(_GROUPS, (0.000739, 0.0132, 0.4772, 7.994))),
        "CNT software [9]": dict(zip(_GROUPS, (0.05, 1.0, 21.0, 435.0))),
    },
    note="seconds per CMNT or CNT encryption; '2 min 57 s' is 177 s, '7 min 15 s' 435 s",
    extra={"fmax_mhz": 166.45})

def table6_cycles(scheme, group):
    """[Cao13] Table 6's 2^64-2^32+1 encryption time of ``scheme`` ("cmnt" or "cnt") at
    ``group``, in cycles of its 166.45 MHz."""
    row = P000_T6.rows[f"{scheme.upper()} 2^64-2^32+1"]
    return round(row[group] * P000_T6.extra["fmax_mhz"] * 1e6)


#: [Cao14] Table 3: synthesis results of the encryption primitive (whole super-size multiplier).
P001_T3 = PaperTable(
    "001", "Table 3", "Xilinx Virtex-7 XC7VX980T / XC7V2000T (synthesis, not placed)",
    {
        "fermat32": {"modulus": "2^32+1", "fmax_mhz": 292.410, "dsp": 256, "ff": 191176,
                     "lut": 237031},
        "fermat64": {"modulus": "2^64+1", "fmax_mhz": 179.346, "dsp": 2048, "ff": 956974,
                     "lut": 1215166},
        "solinas64": {"modulus": "2^64-2^32+1", "fmax_mhz": 166.450, "dsp": 18496,
                      "ff": 1123001, "lut": 954955},
        "general32": {"modulus": "2^32-2^20+1", "fmax_mhz": 254.054, "dsp": 6292, "ff": 213788,
                      "lut": 171450},
    },
    note="the whole k-point Integer-FFT multiplier with its reducers, not one reducer")

#: [Cao14] Table 4: average encryption time (s) per modulus and group (same values as [Cao13] Table
#6).
P001_T4 = PaperTable(
    "001", "Table 4", "Xilinx Virtex-7",
    {
        "fermat32": dict(zip(_GROUPS, (0.003, 0.050, 0.872, 15.735))),
        "fermat64": dict(zip(_GROUPS, (0.000854, 0.0139, 0.239, 4.284))),
        "solinas64": dict(zip(_GROUPS, (0.000815, 0.0130, 0.221, 3.958))),
        "general32": dict(zip(_GROUPS, (0.003, 0.057, 1.003, 18.110))),
        "software [9]": dict(zip(_GROUPS, (0.05, 0.79, 10.0, 177.0))),
    },
    note="seconds per CMNT encryption")

#: [Wang13] §V and Table I: the 64K-point NTT over 2^64-2^32+1 on a Stratix-V at 100 MHz.
P002_64K = PaperTable(
    "002", "§V, Table I", "Altera Stratix-V 5SGSMD8N3F45I4, 100 MHz",
    {"64K NTT": {"n": 65536, "time_us": 125.0, "clock_mhz": 100.0, "cycles": 12500,
                 "alut": 462983, "regs": 336377, "dsp": 720},
     "64K NTT on Tesla C2050 GPU": {"n": 65536, "time_us": 260.0}},
    note="'about 0.125 ms' at 100 MHz; cycles = 0.125 ms x 100 MHz (derived here)")

#: [Kir25] Table 4.6: iteration counts, (N, TP, l) -> architecture -> iterations.
P003_T4_6 = PaperTable(
    "003", "Table 4.6", "formulas of Table 4.5 (k = l)",
    {(2**16, 32, 17): {"SK pipelined": 628736, "SK folded": 661504, "Cox-Rower": 1179648,
                       "MRC pipelined": 65536, "MRC iterative": 1179648},
     (2**14, 32, 7): {"SK pipelined": 29184, "SK folded": 32256, "Cox-Rower": 131072,
                      "MRC pipelined": 16384, "MRC iterative": 131072},
     (2**12, 64, 4): {"SK pipelined": 1344, "SK folded": 1536, "Cox-Rower": 20480,
                      "MRC pipelined": 4096, "MRC iterative": 20480}})


def _util(rows):
    keys = ("lut", "ff", "bram", "dsp", "t_min_ns", "fmax_mhz", "cc", "time_us", "atp_1e6")
    return {(bits, tp): dict(zip(keys, values)) for (bits, tp), values in rows.items()}


_U280 = "AMD Alveo U280, Vivado 2022.2 (SK folded)"
_UNOTE = ("LUT and FF as printed (x10^3 expanded); CC and Time for one new target residue; "
          "ATP = Time·(LUT + FF/2 + 100·DSP + 300·BRAM) in 10^6")

#: [Kir25] Tables 4.7–4.9: (log q_i, TP) -> utilization, for (log N, l) = (16, 17), (14, 7), (12,
#30).
P003_T4_7 = PaperTable("003", "Table 4.7", _U280, _util({
    (32, 1): (2400, 5000, 192, 18, 2.1, 476.19, 1245184, 2614.89, 168.18),
    (32, 16): (22500, 37100, 192, 288, 2.1, 476.19, 77824, 163.43, 20.82),
    (32, 64): (75800, 139900, 192, 1152, 2.7, 370.37, 19456, 52.53, 16.73),
    (64, 1): (5900, 12900, 384, 60, 2.55, 392.16, 1245184, 3175.22, 424.03),
    (64, 8): (31500, 53900, 384, 480, 2.7, 370.37, 155648, 420.25, 93.16),
    (64, 32): (121100, 198500, 384, 1920, 3.2, 312.50, 38912, 124.52, 65.70)}),
    _UNOTE, {"n": 2**16, "l": 17})
P003_T4_8 = PaperTable("003", "Table 4.8", _U280, _util({
    (32, 1): (1800, 3600, 48, 15, 2.0, 500.00, 147456, 294.91, 5.75),
    (32, 16): (20700, 35500, 48, 240, 2.1, 476.19, 9216, 19.35, 1.49),
    (32, 64): (70000, 136900, 96, 960, 2.7, 370.37, 2304, 6.22, 1.64),
    (64, 1): (5400, 10800, 96, 66, 2.45, 408.16, 147456, 361.27, 16.68),
    (64, 8): (32600, 54900, 96, 528, 2.55, 392.16, 18432, 47.00, 6.66),
    (64, 32): (124800, 206000, 96, 2112, 3.3, 303.03, 4608, 15.21, 7.11)}),
    _UNOTE, {"n": 2**14, "l": 7})
P003_T4_9 = PaperTable("003", "Table 4.9", _U280, _util({
    (32, 1): (3000, 6700, 12, 21, 1.95, 512.82, 131072, 255.59, 3.09),
    (32, 16): (24200, 41700, 24, 336, 2.1, 476.19, 8192, 17.20, 1.48),
    (32, 64): (80700, 153800, 96, 1344, 2.77, 361.01, 2048, 5.67, 1.82),
    (64, 1): (7400, 16600, 22.5, 66, 2.4, 416.67, 131072, 314.57, 9.13),
    (64, 8): (34900, 61300, 24, 528, 2.55, 392.16, 16384, 41.78, 5.25),
    (64, 32): (128100, 215500, 96, 2112, 3.4, 294.12, 4096, 13.93, 6.63)}),
    _UNOTE, {"n": 2**12, "l": 30})

#: [Kir25] Tables 4.10 / 4.11: base extension time (µs) at log q_i = 60: the paper's design (TP =
#32, : 5 ns clock assumed) and the best OpenFHE time (AMD R9 7950X / M1 Pro with OpenMP).
P003_T4_10 = PaperTable(
    "003", "Table 4.10", "Alveo U280 at an assumed 5 ns clock; OpenFHE on CPUs",
    {17: {"ours_us": 826.88, "openfhe_best_us": 13384}, 18: {"ours_us": 921.6,
                                                             "openfhe_best_us": 14553}},
    note="log N = 16, log q_i = 60, TP = 32; best OpenFHE = M1 Pro 10C w/ OMP", extra={"n": 2**16})
P003_T4_11 = PaperTable(
    "003", "Table 4.11", "Alveo U280 at an assumed 5 ns clock; OpenFHE on CPUs",
    {4: {"ours_us": 61.44, "openfhe_best_us": 744}, 5: {"ours_us": 89.6, "openfhe_best_us": 848},
     6: {"ours_us": 122.88, "openfhe_best_us": 967},
     7: {"ours_us": 161.28, "openfhe_best_us": 1141}},
    note="log N = 14, log q_i = 60, TP = 32; best OpenFHE = AMD R9 7950X w/ OMP",
    extra={"n": 2**14})

#: [Mig16] Table II (Stratix V DE5-net, balanced; r = 5 on Catapult) and Table III (A) hardware row.
P004_T2 = PaperTable(
    "004", "Table II", "Altera Stratix V (DE5-net; r = 5: Catapult), balanced mode",
    {3: {"alm": 29718, "regs": 76706, "mem_bits": 4131, "dsp": 100, "fmax_mhz": 355.75},
     4: {"alm": 62215, "regs": 155427, "mem_bits": 12638, "dsp": 200, "fmax_mhz": 330.58},
     5: {"alm": 124978, "regs": 309416, "mem_bits": 101380, "dsp": 400, "fmax_mhz": 321.34}})
P004_T3 = PaperTable(
    "004", "Table III (A)", "hardware accelerator at the 250 MHz PCIe clock",
    {3: {"hw_us": 583.2, "sw_pre_us": 531, "sw_post_us": 1350, "total_us": 2460},
     4: {"hw_us": 388.8, "sw_pre_us": 385, "sw_post_us": 931, "total_us": 1704},
     5: {"hw_us": 259.2, "sw_pre_us": 270, "sw_post_us": 710, "total_us": 1240}},
    note="n = 2560, log2 q = 125; FFT [1] total at (4096, 125): 1.96 ms", extra={"clock_mhz": 250})
