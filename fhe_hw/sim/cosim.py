"""Co-simulation of generated Verilog with Verilator and a generated C++ harness.

Amaranth's Python simulator runs a few thousand cycles per second; the large transforms and
engines (n = 65536, CMNT toy group) need millions. This module writes the unit's Verilog
(:func:`fhe_hw.units.to_verilog`), generates a C++ harness from the unit's signature, compiles
both with Verilator (Debian's ``verilator``; ``apt-get install verilator`` when missing) and
drives the streams from files, with the same rules and the same cycle count definition as
:func:`fhe_hw.sim.pysim.run_stream`: an input beat, once offered, is held until it transfers;
``cycles`` runs from the first input transfer to the last output transfer, both included.

We chose a C++ harness over cocotb because cocotb drives every cycle from Python and runs at
about 2.5k cycles/s here, no faster than pysim; the harness runs at millions.
"""

import hashlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Shape, Value
from amaranth.lib import stream
from amaranth.lib.wiring import Flow

from .. import builddir
from ..debian import require_debian_tool
from ..params import require_int
from ..tools import tool_version
from ..units import to_verilog, top_name
from .pysim import StreamRun, pack, unpack
from .verilog import without_zero_memories

__all__ = ["require_verilator", "CosimModel", "build", "Port", "stream_ports",
           "add_build_arguments", "judge", "finish"]


def require_verilator():
    """The path of ``verilator`` (Debian's package, installed when missing and we are root);
    ``RuntimeError`` otherwise."""
    return require_debian_tool("verilator", "verilator")


@dataclass(frozen=True)
class Port:
    name: str           # signature member name, e.g. "i", "o", "i_a", or a plain signal
    width: int
    is_input: bool
    is_stream: bool
    has_ready: bool
    shape: object       # payload shape, for pack/unpack


def stream_ports(component):
    """The :class:`Port` of every member of ``component``'s signature: streams (payload width
    and shape, whether it has ``ready``) and plain signals."""
    ports = []
    for name, member in component.signature.members.items():
        is_input = member.flow == Flow.In
        if member.is_signature and isinstance(member.signature, stream.Signature):
            payload = getattr(component, name).payload
            ports.append(Port(name, len(Value.cast(payload)), is_input, True,
                               not member.signature.always_ready, payload.shape()))
        elif member.is_port:
            ports.append(Port(name, Shape.cast(member.shape).width, is_input, False, False,
                               member.shape))
        else:
            raise TypeError(f"component port {name!r} must be a stream or a signal for cosim")
    return ports


def _cxx_set(expr, width, words):
    if width <= 64:
        return f"{expr} = {words}[0] | ((uint64_t){words}[1] << 32);"
    return f"for (int w = 0; w < {(width + 31) // 32}; w++) {expr}[w] = {words}[w];"


def _cxx_get(expr, width, words):
    if width <= 64:
        return f"{{ uint64_t v = {expr}; {words}[0] = (uint32_t)v; {words}[1] = v >> 32; }}"
    return f"for (int w = 0; w < {(width + 31) // 32}; w++) {words}[w] = {expr}[w];"


_HARNESS = r"""
#include "V{top}.h"
#include "verilated.h"
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

typedef std::vector<uint32_t> Beat;

static Beat parse(const char *hex, int words) {{
    Beat b(words + 2, 0);
    int n = strlen(hex), bit = 0;
    for (int i = n - 1; i >= 0; i--, bit += 4) {{
        char c = hex[i];
        uint32_t d = c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
        b[bit / 32] |= d << (bit % 32);
    }}
    return b;
}}

static std::vector<Beat> load(const char *path, int words) {{
    std::vector<Beat> beats;
    FILE *f = fopen(path, "r");
    if (!f) {{ perror(path); exit(2); }}
    static char line[1 << 20];
    while (fgets(line, sizeof line, f)) {{
        line[strcspn(line, "\r\n")] = 0;
        if (*line) beats.push_back(parse(line, words));
    }}
    fclose(f);
    return beats;
}}

static void dump(FILE *f, const Beat &b, int words) {{
    bool lead = true;
    for (int w = words - 1; w >= 0; w--) {{
        if (lead && b[w] == 0 && w) continue;
        fprintf(f, lead ? "%x" : "%08x", b[w]);
        lead = false;
    }}
    fputc('\n', f);
}}

static uint64_t rng_state = {seed}ULL * 2654435761ULL + 1;
static bool chance(int permille) {{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (int)(rng_state % 1000) < permille;
}}

int main(int argc, char **argv) {{
    Verilated::commandArgs(argc, argv);
    V{top} *top = new V{top};
    const char *dir = argv[1];
    int valid_pm = atoi(argv[2]), ready_pm = atoi(argv[3]);
    long limit = atol(argv[4]);
    std::string d(dir);
{declare}
    top->clk = 0; top->rst = 1; top->eval();
    for (int i = 0; i < 2; i++) {{ top->clk = 1; top->eval(); top->clk = 0; top->eval(); }}
    top->rst = 0; top->eval();
    long cycle = 0, first = -1, last = -1;
    while ({not_done}) {{
        if (cycle >= limit) {{ fprintf(stderr, "timeout after %ld cycles\n", cycle); return 3; }}
{drive}
        top->eval();
{sample}
        top->clk = 1; top->eval(); top->clk = 0; top->eval();
        cycle++;
    }}
{close}
    printf("first %ld last %ld\n", first, last);
    top->final();
    delete top;
    return 0;
}}
"""


def _vl(name):
    """The C++ member name Verilator gives a port: it escapes "__" as "___05F"."""
    return "top->" + name.replace("__", "___05F")


def _harness(top, ports, seed):
    declare, drive, sample, close, done = [], [], [], [], []
    for p in ports:
        words = (p.width + 31) // 32
        sig = _vl(f"{p.name}__payload" if p.is_stream else p.name)
        valid, ready_port = _vl(f"{p.name}__valid"), _vl(f"{p.name}__ready")
        if not p.is_input:
            declare += [f"    FILE *out_{p.name} = fopen((d + \"/{p.name}.out\").c_str(), \"w\");",
                        f"    long want_{p.name} = atol(getenv(\"WANT_{p.name}\"));",
                        f"    long got_{p.name} = 0; Beat w_{p.name}({words} + 2, 0);"]
            done.append(f"got_{p.name} < want_{p.name}")
            ready = "1"
            if p.has_ready:
                drive.append(f"        {ready_port} = chance(ready_pm);")
                ready = ready_port
            sample += [f"        if ({valid} && {ready}) {{",
                       f"            {_cxx_get(sig, p.width, 'w_' + p.name)}",
                       f"            dump(out_{p.name}, w_{p.name}, {words});",
                       f"            got_{p.name}++; last = cycle;",
                       "        }"]
            close.append(f"    fclose(out_{p.name});")
        elif p.is_stream:
            declare += [f"    std::vector<Beat> in_{p.name} = load((d + \"/{p.name}.in\").c_str(),"
                        f" {words});",
                        f"    size_t at_{p.name} = 0; bool offered_{p.name} = false;"]
            done.append(f"at_{p.name} < in_{p.name}.size()")
            drive += [f"        if (!offered_{p.name} && at_{p.name} < in_{p.name}.size() && "
                      "chance(valid_pm)) {",
                      f"            {_cxx_set(sig, p.width, f'in_{p.name}[at_{p.name}]')}",
                      f"            offered_{p.name} = true;",
                      "        }",
                      f"        {valid} = offered_{p.name};"]
            ready = ready_port if p.has_ready else "1"
            sample += [f"        if (offered_{p.name} && {ready}) {{",
                       f"            at_{p.name}++; offered_{p.name} = false;",
                       "            if (first < 0) first = cycle;",
                       "        }"]
        else:
            declare += [f"    Beat cfg_{p.name} = load((d + \"/{p.name}.in\").c_str(), "
                        f"{words})[0];",
                        f"    {_cxx_set(sig, p.width, 'cfg_' + p.name)}"]
    return _HARNESS.format(top=top, seed=seed, declare="\n".join(declare),
                           drive="\n".join(drive), sample="\n".join(sample),
                           close="\n".join(close), not_done=" || ".join(done) or "false")


class CosimModel:
    """A compiled Verilator model of one unit; :meth:`run` streams beats through it."""

    def __init__(self, binary, ports, workdir):
        self.binary, self.ports, self.workdir = Path(binary), ports, Path(workdir)

    def run(self, inputs, expected_counts, *, config=None, valid_prob=1.0, ready_prob=1.0,
            max_cycles=None):
        """Same contract as :func:`fhe_hw.sim.pysim.run_stream`; ``config`` maps plain input
        signals to the constant values they hold during the run."""
        config = config or {}
        by_name = {p.name: p for p in self.ports}
        for name, beats in inputs.items():
            with open(self.workdir / f"{name}.in", "w") as f:
                f.writelines(f"{pack(by_name[name].shape, b):x}\n" for b in beats)
        for name, value in config.items():
            (self.workdir / f"{name}.in").write_text(f"{pack(by_name[name].shape, value):x}\n")
        env = {**os.environ, **{f"WANT_{n}": str(c) for n, c in expected_counts.items()}}
        limit = max_cycles or 64 + 64 * (sum(map(len, inputs.values())) +
                                         sum(expected_counts.values()))
        result = subprocess.run([str(self.binary), str(self.workdir),
                                 str(round(valid_prob * 1000)), str(round(ready_prob * 1000)),
                                 str(limit)], capture_output=True, text=True, env=env)
        if result.returncode:
            raise RuntimeError(f"cosim failed ({result.returncode}): {result.stderr[-2000:]}")
        first, last = (int(v) for v in result.stdout.split()[1::2])
        outputs = {}
        for name in expected_counts:
            lines = (self.workdir / f"{name}.out").read_text().split()
            outputs[name] = [unpack(by_name[name].shape, int(x, 16)) for x in lines]
        return StreamRun(outputs, last - first + 1, first, last)


def build(component, unit_name, workdir=None, *, seed=1, opt="-O3", split=None, jobs=2):
    """Generate Verilog and the harness for ``component``, compile them with Verilator and
    return a :class:`CosimModel`. ``opt``: the C++ optimisation; ``split`` (None, or a number
    of statements): Verilator's ``--output-split`` and ``--output-split-cfuncs``, which cut the
    model into many small C++ files and functions so that the compiler's memory stays bounded
    for very large designs; ``jobs``: parallel compilations. Builds are cached in ``workdir``
    (default :func:`fhe_hw.builddir.cosim_dir`: ``build/cosim/<unit>-<hash of the
    Verilog, harness, Verilator and its options>``)."""
    verilator = require_verilator()
    # the memories that start all zero are left to Verilator's own zero start: their word by
    # word initialisation is one C++ function that g++ cannot compile for Mbit RAMs
    verilog = without_zero_memories(to_verilog(component, unit_name))
    ports = stream_ports(component)
    top = top_name(unit_name)
    harness = _harness(top, ports, seed)
    source = hashlib.sha256((verilog + harness).encode()).hexdigest()
    key = {"source": source, "opt": opt, "verilator": tool_version(verilator, "--version")}
    if split is not None:
        key["split"] = require_int("split", split, minimum=100)
    workdir = Path(workdir or builddir.cosim_dir(unit_name, key))
    binary = workdir / "obj" / "sim"
    if not binary.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "unit.v").write_text(verilog)
        (workdir / "harness.cpp").write_text(harness)
        # Verilator writes the C++ and exits before make compiles it, so that its own memory
        # (several GB for the largest engines) is free while the compiler runs
        cmd = [verilator, "--cc", "--exe", "-Wno-fatal", "-Wno-lint", "--x-assign", "fast",
               "--x-initial", "fast", "--top-module", top, "--Mdir", "obj", "-o", "sim",
               "-CFLAGS", opt]
        if split is not None:
            cmd += ["--output-split", str(split), "--output-split-cfuncs", str(split)]
        make = ["make", "-j", str(require_int("jobs", jobs, minimum=1)), "-C", "obj", "-f",
                f"V{top}.mk"]
        for step, what in ((cmd + ["unit.v", "harness.cpp"], "verilator"), (make, "make")):
            result = subprocess.run(step, cwd=workdir, capture_output=True, text=True)
            if result.returncode:
                raise RuntimeError(f"{what} failed: {result.stderr[-3000:]}")
    return CosimModel(binary, ports, workdir)


def add_build_arguments(parser, opt="-O1"):
    """The co-simulation tools' ``--seed`` and Verilator build options (``--opt``, ``--split``,
    ``--jobs``, as :func:`build` takes them) on an argparse ``parser``."""
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opt", default=opt, help="C++ optimisation of the Verilator model")
    parser.add_argument("--split", type=int,
                        help="Verilator --output-split and --output-split-cfuncs (statements "
                             "per C++ file and function): bounds the compiler's memory on big "
                             "models")
    parser.add_argument("--jobs", type=int, default=2, help="parallel C++ compilations")


def judge(result, label):
    """Print a co-simulation ``result`` (a dict with ``cycles`` and ``expected_cycles`` where
    the run measures them, and ``ok`` where the scenario compared data itself) as one JSON
    line; return 1 (saying FAIL or CYCLE MISMATCH on stderr) if its data or its cycle count
    differs, else 0."""
    print(json.dumps(result), flush=True)
    status = 0
    if not result.get("ok", True):
        print(f"FAIL: {label} differs from the reference: {result.get('error', '')}",
              file=sys.stderr)
        status = 1
    if "cycles" in result and result["cycles"] != result.get("expected_cycles",
                                                             result["cycles"]):
        print(f"CYCLE MISMATCH: {label}", file=sys.stderr)
        status = 1
    return status


def finish(results, out, start, status):
    """Write ``results`` to ``out`` (JSON), print the summary line (``ok`` or ``FAILED``, the
    number of runs, the seconds since ``start``); return ``status``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"{'ok' if status == 0 else 'FAILED'}: {len(results)} runs in "
          f"{time.monotonic() - start:.0f} s, wrote {out}")
    return status
