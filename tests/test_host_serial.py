"""`fhe-hw run` through pyserial (fhe_hw.link.host.SerialTransport) against a simulated board on the
other end of a pseudo-terminal: the real-port code path, with the board top simulated."""

import os
import select
import threading

import pytest

from fhe_hw.arith import BarrettReducer
from fhe_hw.cli import main
from fhe_hw.link import HostLinkTop
from fhe_hw.link.host import SimTransport
from fhe_hw.link.protocol import END


def _serve(master, device, stop):
    """Hand every whole request from the pty to the simulated device; write back its answer."""
    buf = b""
    while not stop.is_set():
        if not select.select([master], [], [], 0.02)[0]:
            continue
        buf += os.read(master, 4096)
        if len(buf) > 1 and buf[-1] == END:
            device.write(buf)
            buf = b""
            os.write(master, device.read(device.default_timeout))


def test_fhe_hw_run_over_a_serial_port_checks_results_against_the_golden_model(capsys):
    pytest.importorskip("serial")
    master, slave = os.openpty()
    top = HostLinkTop(BarrettReducer("general32"), "barrett-reducer", {"modulus": "general32"},
                      clk_hz=4e6, baud=1e6, depth=32)
    stop = threading.Event()
    server = threading.Thread(target=_serve, args=(master, SimTransport(top, level="byte"), stop),
                              daemon=True)
    server.start()
    try:
        code = main(["run", "--port", os.ttyname(slave), "--vectors", "16", "--timeout", "10"])
    finally:
        stop.set()
        server.join(5)
        os.close(master)
        os.close(slave)
    out = capsys.readouterr().out
    assert code == 0, out
    cycles = 23 + BarrettReducer("general32").latency   # first input to last output
    assert "barrett-reducer {'modulus': 'general32'}: 23 of 23 results match the golden model; " \
           f"{cycles} cycles" in out
