"""Long calls release the interpreter and stop on Ctrl-C. The input is a trace written here
(about 150 MB of plain JSON lines, so the scan lasts long enough to be watched)."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import ioscout

LINES = 1_200_000


@pytest.fixture(scope="module")
def large_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("large") / "trace-0-of-1.pfw"
    line = (
        '{{"id":{0},"name":"read","cat":"POSIX","pid":{1},"tid":{1},"ts":{2},"dur":12,'
        '"ph":"X","args":{{"fhash":"f{3}","size_sum":4096}}}}\n'
    )
    with open(path, "w") as out:
        out.write("[\n")
        for start in range(0, LINES, 100_000):
            out.write("".join(line.format(index, index % 8, 1000 + index * 20, index % 64) for index in range(start, start + 100_000)))
    return str(path)


def test_a_scan_releases_the_interpreter(large_trace):
    counter = [0]
    running = threading.Event()
    running.set()

    def count():
        while running.is_set():
            counter[0] += 1

    worker = threading.Thread(target=count)
    worker.start()
    before = counter[0]
    result = ioscout.count(large_trace)
    during = counter[0] - before
    running.clear()
    worker.join()
    assert result["total"]["complete"] == LINES
    assert during > 10_000, f"the other thread made {during} steps while the scan ran"


CHILD = r"""
import sys, time, ioscout
started = []
def progress(done, total):
    if not started:
        started.append(time.monotonic())
        print("started", flush=True)
try:
    ioscout.analyze(sys.argv[1], progress=progress, threads=1)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def first_line(child, seconds):
    """The child's first line of output, or a failure after `seconds` (a child that hangs)."""
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            child.kill()
            pytest.fail(f"the child printed nothing in {seconds} s")
    return child.stdout.readline().strip()


def test_ctrl_c_stops_a_long_call_with_keyboard_interrupt(large_trace):
    begun = time.monotonic()
    ioscout.analyze(large_trace, threads=1)
    whole = time.monotonic() - begun
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, large_trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert first_line(child, 120) == "started"
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail("the call did not stop on SIGINT")
    stopped = time.monotonic() - sent
    assert out.strip() == "interrupted", (out, err)
    assert child.returncode == 0
    # Not a benchmark: a scan that ran on to the end after the signal would take about the
    # whole analysis (measured above); a cancelled one stops within a unit.
    assert stopped < whole / 2, f"stopped {stopped:.2f} s after SIGINT; the whole analysis takes {whole:.2f} s"
    print(f"stopped {stopped:.2f} s after SIGINT (the whole analysis: {whole:.2f} s)")


def test_leaving_scan_batches_early_stops_the_scan(large_trace):
    stream = ioscout.scan_batches(large_trace)
    for batch in stream:
        assert batch.num_rows > 0
        break
    stream.close()
    assert stream.scan is not None, "close() waits for the scan to end"
    assert stream.scan["complete"] is False, "the scan stopped before the end"
