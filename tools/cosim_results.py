"""Shared by the tools/cosim_*.py scripts: judge one co-simulation result and write them all.

A result is a dict with ``cycles`` and ``expected_cycles`` and, where the script compares data
itself, ``ok``; :func:`judge` prints it and says on stderr what does not match, :func:`finish`
writes the JSON list and the summary line. Both return the exit status (0 = every run matched).
"""

import json
import sys
import time
from pathlib import Path


def judge(result, label):
    """Print ``result`` as one JSON line; 1 (with FAIL / CYCLE MISMATCH on stderr) if its
    data or its cycle count differs, else 0."""
    print(json.dumps(result), flush=True)
    status = 0
    if not result.get("ok", True):
        print(f"FAIL: {label} differs from the reference", file=sys.stderr)
        status = 1
    if result["cycles"] != result["expected_cycles"]:
        print(f"CYCLE MISMATCH: {label}", file=sys.stderr)
        status = 1
    return status


def finish(results, out, start, status):
    """Write ``results`` to ``out`` (JSON) and print the summary; return ``status``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"{'ok' if status == 0 else 'FAILED'}: {len(results)} runs in "
          f"{time.monotonic() - start:.0f} s, wrote {out}")
    return status
