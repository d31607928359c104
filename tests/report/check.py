"""Opens `ioscout report` output in headless Chromium (Debian's `chromium`), on the bundled sample
and on a 48-process corpus folder, and checks that the page loads without console errors, that
it has at least four charts, that each chart's region of a screenshot is drawn (not blank), that
no legend runs past its chart, that no two row or column labels overlap, that every timeline row
has a visible mark, that every chart's data lie inside its plot and reach at least 45 % of its
axis, and that severities are coloured; then, scripted by the page itself, that a
zoom changes what every time chart draws and keeps them on one window, that the process filter
narrows the timeline, and that the flame graph's top frames (and those inside the first, once
clicked) are those of an independent nesting of the trace's events. And the job-summary page of
the bundled Darshan log: its charts (the read and write sizes apart) drawn inside their axes.

Usage: python3 tests/report/check.py path/to/ioscout [chromium]
"""

import html as html_module
import json
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else REPO / "target" / "release" / "ioscout"
CHROMIUM = sys.argv[2] if len(sys.argv) > 2 else (shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
WIDTH, HEIGHT = 1200, 11000
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1", f"--window-size={WIDTH},{HEIGHT}"]


def decode_png(data):
    """RGB or RGBA, 8 bits, not interlaced: rows of (r, g, b) tuples."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunk = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour {colour}, interlace {interlace}")
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for index in range(stride):
            left = line[index - channels] if index >= channels else 0
            up = previous[index]
            corner = previous[index - channels] if index >= channels else 0
            if kind == 1:
                line[index] = (line[index] + left) & 255
            elif kind == 2:
                line[index] = (line[index] + up) & 255
            elif kind == 3:
                line[index] = (line[index] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - corner
                a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                predictor = left if a <= b and a <= c else (up if b <= c else corner)
                line[index] = (line[index] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def trace_events(source):
    """Every JSON object line of the traces of `source` (`.pfw` and `.pfw.gz`), read here
    independently of ioscout."""
    import gzip
    for path in sorted(Path(source).glob("*.pfw*")):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as stream:
            for line in stream:
                line = line.strip().rstrip(",")
                if not line.startswith("{"):
                    continue
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


def call_tree_tops(source):
    """An independent model of the flame graph's first two levels: every complete event of the
    traces (DFTracer's own metadata left out), nested per (pid, tid) by time, merged by name.
    Returns the root names by inclusive time, and the first root's children by inclusive time."""
    threads = {}
    for event in trace_events(source):
        if str(event.get("cat", "")).lower() == "dftracer" or "dur" not in event or "ts" not in event:
            continue
        if event.get("ph") not in (1, "X", None):
            continue
        start, end = int(event["ts"]), int(event["ts"]) + max(0, int(event["dur"]))
        threads.setdefault((event.get("pid"), event.get("tid", 0)), []).append((start, end, event.get("name", "")))
    roots, children = {}, {}
    for intervals in threads.values():
        intervals.sort(key=lambda item: (item[0], -item[1], item[2]))
        stack = []
        for start, end, name in intervals:
            while stack and stack[-1][0] < end:
                stack.pop()
            path = (stack[-1][1] + (name,)) if stack else (name,)
            if len(path) == 1:
                roots[name] = roots.get(name, 0) + end - start
            elif len(path) == 2:
                children.setdefault(path[0], {})
                children[path[0]][name] = children[path[0]].get(name, 0) + end - start
            stack.append((end, path))
    order = sorted(roots, key=lambda name: (-roots[name], name))
    first = children.get(order[0], {}) if order else {}
    return order, sorted(first, key=lambda name: (-first[name], name))


def tick_value(text):
    """A tick label of the page (`1.5`, `2.0k`, `100.0M`) as a number."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(text[-1:], 1)
    return float(text[:-1] if scale != 1 else text) * scale


def most_threads(source):
    """The most threads (distinct tids) of any process of the traces: an independent bound on a
    process's seconds of I/O per second."""
    threads = {}
    for event in trace_events(source):
        threads.setdefault(event.get("pid"), set()).add(event.get("tid", 0))
    return max((len(tids) for tids in threads.values()), default=1)


def check_drill(page, profile, source=None):
    """The drill-down, scripted by the page itself (`#check-drill`): six wheel steps over the
    bandwidth chart, a process chosen, a flame frame clicked (traces: `source`, whose call tree
    the flame graph is held to; a Darshan log's page has none); what was drawn before and after."""
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri() + "#check-drill"],
                         capture_output=True, text=True, timeout=120)
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, "console messages in the scripted drill-down:\n" + "\n".join(console)
    match = re.search(r'<pre id="drill-check" hidden="">(.*?)</pre>', dom.stdout, re.S)
    assert match, "the drill-down's scripted check did not run"
    result = json.loads(html_module.unescape(match.group(1)))
    before, zoomed = result["before"], result["zoomed"]
    time_charts = {"chart-timeline", "chart-bandwidth", "chart-operations"}
    assert time_charts <= {chart for chart, _, _ in before["windows"]}, f"time charts not zoomable: {before['windows']}"
    assert zoomed["t1"] - zoomed["t0"] < 0.5 * (before["t1"] - before["t0"]), f"the wheel did not zoom: {before['t0'], before['t1']} -> {zoomed['t0'], zoomed['t1']}"
    for chart, t0, t1 in zoomed["windows"]:
        assert abs(t0 - zoomed["t0"]) < 1e-9 and abs(t1 - zoomed["t1"]) < 1e-9, f"{chart} does not follow the zoom ({t0}, {t1})"
    assert zoomed["ticks"] != before["ticks"], "the zoom did not change the time axis"
    assert len(set(zoomed["ticks"])) == len(zoomed["ticks"]), f"repeated tick labels: {zoomed['ticks']}"
    if "chart-offsets" in {chart for chart, _, _ in before["windows"]}:
        # The wheel zooms at 30 % of the width: a trace's calls fill its span, a log's run
        # time may hold its I/O at the start only (fewer drawn, maybe none, never more).
        low = 0 if source is None else 1
        assert low <= zoomed["offsets"] < before["offsets"], f"offsets drawn: {before['offsets']} -> {zoomed['offsets']}"
        assert before["slow"] > 0, "no call marked among the slowest 5 %"
    if "filtered" in result:
        # One row for the process chosen, out of several (a log of one rank has one anyway).
        rows_before = before["timeline_rows"]
        assert result["filtered"]["timeline_rows"] == 1 and (rows_before > 1 or source is None), f"process filter: {result['filtered']['timeline_rows']} of {rows_before} rows"
        if "chart-offsets" in {chart for chart, _, _ in before["windows"]}:
            assert result["filtered"]["offsets"] <= zoomed["offsets"], f"the process filter drew more offsets: {zoomed['offsets']} -> {result['filtered']['offsets']}"
    if source is None:
        assert "flame_clicked" not in result, "a flame graph on a page without nested events"
        print(f"Darshan drill-down: zoom {before['t1'] - before['t0']:.3f} s -> {zoomed['t1'] - zoomed['t0']:.3f} s on every time chart, "
              f"timeline rows {before['timeline_rows']} -> {result['filtered']['timeline_rows']} for one rank, "
              f"offsets {before['offsets']} -> {zoomed['offsets']} drawn zoomed ({before['slow']} slowest marked)")
        return
    roots, first_children = call_tree_tops(source)
    assert before["top_frames"] == roots[:len(before["top_frames"])] and before["top_frames"], f"flame graph roots {before['top_frames']}, expected {roots[:5]}"
    assert result["flame_clicked"] == roots[0], result["flame_clicked"]
    # Frames too narrow to draw (under half a pixel) are left out: a prefix of the model's.
    zoomed_frames = result["flame_zoomed"]
    assert zoomed_frames == first_children[:len(zoomed_frames)] and bool(zoomed_frames) == bool(first_children), f"zoomed frames {zoomed_frames}, expected {first_children[:5]}"
    print(f"{source.name} drill-down: zoom {before['t1'] - before['t0']:.3f} s -> {zoomed['t1'] - zoomed['t0']:.3f} s on every time chart, "
          f"offsets {before['offsets']} -> {zoomed['offsets']} drawn ({before['slow']} slowest marked), flame roots {before['top_frames'][:3]}, "
          f"inside {result['flame_clicked']}: {result['flame_zoomed'][:3]}")


def layout_of(page, profile):
    """Opens `page` in Chromium: no console message, the page's own layout check as it ran."""
    html = page.read_text()
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', ""), "the report references the network"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, "console messages:\n" + "\n".join(console)
    match = re.search(r'<pre id="layout" hidden="">(.*?)</pre>', dom.stdout, re.S)
    assert match, "the page's script did not run (no layout)"
    layout = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    assert len(layout["charts"]) >= 4, f"{len(layout['charts'])} charts"
    # What a reader would see wrong: a legend cut off, labels written over each other, a
    # process row of the timeline with nothing drawn in it.
    assert not layout["clipped_legends"], f"legends run past their chart: {layout['clipped_legends']}"
    assert not layout["overlapping_labels"], f"labels overlap: {layout['overlapping_labels'][:10]}"
    assert not layout["rows_without_marks"], f"timeline rows with no visible mark: {layout['rows_without_marks']}"
    # Every chart's axis against its data: marks inside the plot, the highest at 45 % of the
    # axis or more (rank 0's chart once reached 1.0 on an axis to 260).
    assert not layout["axes_off"], f"axes that do not fit their data: {layout['axes_off']}"
    return layout, html


def drawn(page, profile, charts, name):
    """A screenshot of `page`: each chart's region holds drawing, not a blank."""
    size = page.stat().st_size
    assert size < 10 * 1024 * 1024, f"the page is {size} bytes"
    shot = page.parent / "shot.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    width, height, channels, rows = decode_png(shot.read_bytes())
    for chart in charts:
        x0, y0 = int(chart["x"]), int(chart["y"])
        x1, y1 = min(width, int(chart["x"] + chart["width"])), min(height, int(chart["y"] + chart["height"]))
        assert x1 - x0 > 50 and y1 - y0 > 50, f"{chart['id']}: region {chart} is off the screenshot ({width}x{height})"
        total = marked = 0
        colours = set()
        for y in range(y0, y1, 2):
            line = rows[y]
            for x in range(x0, x1, 2):
                pixel = tuple(line[x * channels:x * channels + 3])
                total += 1
                colours.add(pixel)
                if sum(pixel) < 720:
                    marked += 1
        share = marked / max(total, 1)
        print(f"{name} {chart['id']}: {x1 - x0}x{y1 - y0} px, {share * 100:.1f} % drawn, {len(colours)} colours")
        assert share > 0.01 and len(colours) > 3, f"{chart['id']} looks blank"


def check(source, scratch):
    """Writes the report of `source`, opens it in Chromium and checks what it drew."""
    page = scratch / "report.html"
    subprocess.run([str(BINARY), "report", str(source), "-o", str(page), "--quiet"], cwd=REPO, check=True)
    profile = scratch / "profile"
    layout, html = layout_of(page, profile)
    charts = layout["charts"]
    # And rank 0's axis against the trace itself: seconds of I/O per second cannot pass a
    # process's threads (twice that with the axis rounded up).
    threads = most_threads(source)
    for chart in charts:
        if chart["id"] == "chart-rank-zero" and chart["y_ticks"]:
            top = max(tick_value(tick) for tick in chart["y_ticks"])
            assert top <= 2 * threads, f"rank 0's axis reaches {top} I/O s per s; a process has at most {threads} threads"
    assert "label-" in html and re.search(r'<td class="label-(critical|high|medium|low)">', html), "severity not coloured"
    check_drill(page, profile, source)
    drawn(page, profile, charts, source.name)
    return len(charts)


def check_darshan(log, scratch, also=(), drill=False):
    """Writes the job-summary page of the Darshan log `log` and checks what Chromium drew: the
    module and operation charts and those `also` names (the read and write sizes apart, the DXT
    heatmaps), every chart inside its axes and drawn; with `drill`, the DXT drill-down's zoom
    and rank filter as the page's own script runs them."""
    page = scratch / "report.html"
    subprocess.run([str(BINARY), "report", str(log), "-o", str(page), "--quiet"], cwd=REPO, check=True)
    profile = scratch / "profile"
    layout, _ = layout_of(page, profile)
    ids = {chart["id"] for chart in layout["charts"]}
    wanted = {"module-time", "operation-counts", *also}
    if drill:
        wanted |= {"chart-timeline", "chart-bandwidth", "chart-operations"}
    assert wanted <= ids, f"charts {sorted(ids)}, wanted {sorted(wanted)}"
    if drill:
        check_drill(page, profile)
    drawn(page, profile, layout["charts"], log.name)
    return len(layout["charts"])


def main():
    sources = [REPO / "testdata" / "sample"]
    many = REPO.parent / "shared" / "corpus" / "dftracer" / "cm1-48ranks-v1"
    if many.is_dir():
        sources.append(many)
    else:
        print(f"skipped: {many} is absent (the many-process check needs the shared corpus)")
    for source in sources:
        with tempfile.TemporaryDirectory(prefix="ioscout-report-") as scratch:
            count = check(source, Path(scratch))
        print(f"report check: {source.name}: {count} charts render, legends whole, labels apart, every timeline row marked, no console errors")
    log = REPO / "testdata" / "darshan" / "mpi-io-test-x86_64-3.5.0.darshan"
    with tempfile.TemporaryDirectory(prefix="ioscout-report-") as scratch:
        count = check_darshan(log, Path(scratch), also=("sizes-posix-read", "sizes-posix-write", "ost-bytes"))
    print(f"report check: {log.name}: {count} charts of the job summary render inside their axes, no console errors")
    # A log with DXT (bundled: never skips): the read and write heatmaps apart, the drill-down's
    # zoom and rank filter.
    log = REPO / "testdata" / "darshan" / "mpi-io-test-x86_64-3.1.3.darshan"
    with tempfile.TemporaryDirectory(prefix="ioscout-report-") as scratch:
        count = check_darshan(log, Path(scratch), also=("heatmap-dxt-posix-read", "heatmap-dxt-posix-written"), drill=True)
    print(f"report check: {log.name}: {count} charts, the DXT heatmaps and drill-down among them, render inside their axes")
    dxt = REPO.parent / "shared" / "corpus" / "darshan" / "logs" / "darshan-logs" / "darshan_logs" / "partial_data_dxt" / "partial_data_dxt.darshan"
    if dxt.is_file():
        with tempfile.TemporaryDirectory(prefix="ioscout-report-") as scratch:
            count = check_darshan(dxt, Path(scratch), also=("sizes-posix-read", "heatmap-dxt-posix-read"), drill=True)
        print(f"report check: {dxt.name}: {count} charts of the job summary, the DXT heatmap among them, render inside their axes")
    else:
        print(f"skipped: {dxt} is absent (the DXT page check needs the shared corpus)")
    # The corpus's largest DXT log: 384 ranks, 2.3 MiB of DXT segments.
    large = REPO.parent / "shared" / "corpus" / "darshan" / "logs" / "drishti-io" / "sample" / "jlbez_8a_benchmark_write_parallel_id1322696_8-21-14519-8141979180909667175_12.darshan"
    if large.is_file():
        with tempfile.TemporaryDirectory(prefix="ioscout-report-") as scratch:
            count = check_darshan(large, Path(scratch), also=("heatmap-dxt-posix-read", "heatmap-dxt-posix-written", "heatmap-dxt-mpiio-written"), drill=True)
        print(f"report check: {large.name}: {count} charts, the DXT heatmaps and drill-down among them, render inside their axes")
    else:
        print(f"skipped: {large} is absent (the large DXT page check needs the shared corpus)")


if __name__ == "__main__":
    main()
