"""The qflow (OSU 0.18 µm) place-and-route table of asic/README.md: hardens the rows of
:data:`fhe_hw.asic.configs.QFLOW_ROWS` and prints the Markdown (also written to
build/tables/qflow.md).

    python tools/qflow_table.py [--jobs N]
"""

import argparse
import sys
import time

from fhe_hw.builddir import table_dir
from fhe_hw.tables.asic import qflow_markdown, qflow_rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    if args.jobs < 1:
        print("qflow_table: error: --jobs must be at least 1", file=sys.stderr)
        return 2
    start = time.monotonic()
    print("qflow: hardening, logs under build/asic/qflow/", file=sys.stderr)
    table = qflow_markdown(qflow_rows(args.jobs), time.monotonic() - start)
    table_dir().mkdir(parents=True, exist_ok=True)
    (table_dir() / "qflow.md").write_text(table)
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
