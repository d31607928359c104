"""Opens `ioscout report` output in headless Chromium (Debian's `chromium`), on the bundled sample
and on a 48-process corpus folder, and checks that the page loads without console errors, that
it has at least four charts, that each chart's region of a screenshot is drawn (not blank), that
no legend runs past its chart, that no two row or column labels overlap, that every timeline row
has a visible mark, and that severities are coloured.

Usage: python3 tests/report/check.py path/to/ioscout [chromium]
"""

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
WIDTH, HEIGHT = 1200, 7000
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


def check(source, scratch):
    """Writes the report of `source`, opens it in Chromium and checks what it drew."""
    page = scratch / "report.html"
    subprocess.run([str(BINARY), "report", str(source), "-o", str(page), "--quiet"], cwd=REPO, check=True)
    html = page.read_text()
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', ""), "the report references the network"
    profile = scratch / "profile"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                          "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, "console messages:\n" + "\n".join(console)
    match = re.search(r'<pre id="layout" hidden="">(.*?)</pre>', dom.stdout, re.S)
    assert match, "the page's script did not run (no layout)"
    layout = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    charts = layout["charts"]
    assert len(charts) >= 4, f"{len(charts)} charts"
    # What a reader would see wrong: a legend cut off, labels written over each other, a
    # process row of the timeline with nothing drawn in it.
    assert not layout["clipped_legends"], f"legends run past their chart: {layout['clipped_legends']}"
    assert not layout["overlapping_labels"], f"labels overlap: {layout['overlapping_labels'][:10]}"
    assert not layout["rows_without_marks"], f"timeline rows with no visible mark: {layout['rows_without_marks']}"
    assert "label-" in html and re.search(r'<td class="label-(critical|high|medium|low)">', html), "severity not coloured"
    shot = scratch / "shot.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    width, height, channels, rows = decode_png(shot.read_bytes())
    for chart in charts:
        x0, y0 = int(chart["x"]), int(chart["y"])
        x1, y1 = min(width, int(chart["x"] + chart["width"])), min(height, int(chart["y"] + chart["height"]))
        assert x1 - x0 > 50 and y1 - y0 > 50, f"{chart['id']}: region {chart} is off the screenshot ({width}x{height})"
        total = drawn = 0
        colours = set()
        for y in range(y0, y1, 2):
            line = rows[y]
            for x in range(x0, x1, 2):
                pixel = tuple(line[x * channels:x * channels + 3])
                total += 1
                colours.add(pixel)
                if sum(pixel) < 720:
                    drawn += 1
        share = drawn / max(total, 1)
        print(f"{source.name} {chart['id']}: {x1 - x0}x{y1 - y0} px, {share * 100:.1f} % drawn, {len(colours)} colours")
        assert share > 0.01 and len(colours) > 3, f"{chart['id']} looks blank"
    return len(charts)


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


if __name__ == "__main__":
    main()
