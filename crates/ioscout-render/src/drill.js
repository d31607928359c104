// The report's drill-down (see drill.rs): redraws the time charts for one shared window and a
// process filter, draws offsets over time, rank 0 against the others and the flame graph.
(function () {
  var source = document.getElementById('drill-data');
  if (!source) { return; }
  var D = JSON.parse(source.textContent);
  var W = 860, LABEL_MOST = 320, COMPUTE = '#0072b2', IO = '#e69f00', SECOND = '#009e73', THIRD = '#cc79a7', SLOW = '#d00000';
  var state = { t0: 0, t1: D.job_s > 0 ? D.job_s : 1, pid: null, file: null, focus: -1 };
  var drawn = {};

  function esc(text) {
    return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function short(value) {
    var a = Math.abs(value);
    if (a >= 1e9) { return (value / 1e9).toFixed(1) + 'G'; }
    if (a >= 1e6) { return (value / 1e6).toFixed(1) + 'M'; }
    if (a >= 1e3) { return (value / 1e3).toFixed(1) + 'k'; }
    if (a >= 10 || a === 0) { return value.toFixed(0); }
    return value.toPrecision(2);
  }
  function ticks(low, high, count) {
    var span = high - low;
    if (!(span > 0)) { return [low]; }
    var step = Math.pow(10, Math.floor(Math.log10(span / count)));
    var fraction = span / count / step;
    step *= fraction >= 5 ? 5 : fraction >= 2 ? 2 : 1;
    var out = [];
    for (var value = Math.ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
      out.push(Math.abs(value) < step * 1e-9 ? 0 : value);
    }
    return out;
  }
  // A tick's label, with as many places as the step between ticks needs.
  function label(value, step) {
    var places = step > 0 ? Math.max(0, Math.min(9, -Math.floor(Math.log10(step) + 1e-9))) : 0;
    return value.toFixed(places);
  }
  function niceMax(value) {
    if (!(value > 0)) { return 1; }
    var power = Math.pow(10, Math.floor(Math.log10(value)));
    var steps = [1, 2, 2.5, 5, 10];
    for (var i = 0; i < steps.length; i++) { if (steps[i] * power >= value) { return steps[i] * power; } }
    return 10 * power;
  }
  function legend(entries, x) {
    var out = '', offset = 0;
    entries.forEach(function (entry) {
      out += '<rect x="' + (x + offset) + '" y="8" width="12" height="12" fill="' + entry[0] + '"/><text x="' + (x + offset + 16) + '" y="18" class="legend">' + esc(entry[1]) + '</text>';
      offset += 24 + 7 * entry[1].length;
    });
    return out;
  }
  // The SVG of a time chart: plot frame, x ticks for the window, y axis to `ymax`.
  function frame(height, left, top, bottom, ymax, ylabel) {
    var plotWidth = W - left - 20, plotHeight = height - top - bottom;
    var out = '<rect x="' + left + '" y="' + top + '" width="' + plotWidth + '" height="' + plotHeight + '" class="plot"/>';
    var span = state.t1 - state.t0, xs = ticks(state.t0, state.t1, 8), step = xs.length > 1 ? xs[1] - xs[0] : span;
    xs.forEach(function (value) {
      var x = left + (value - state.t0) / span * plotWidth;
      out += '<line x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="' + top + '" y2="' + (top + plotHeight) + '" class="grid"/>';
      out += '<text x="' + x.toFixed(1) + '" y="' + (top + plotHeight + 16) + '" class="tick x-tick" text-anchor="middle">' + label(value, step) + '</text>';
    });
    if (ymax !== null) {
      ticks(0, ymax, 4).forEach(function (value) {
        var y = top + plotHeight - value / ymax * plotHeight;
        out += '<line x1="' + left + '" x2="' + (left + plotWidth) + '" y1="' + y.toFixed(1) + '" y2="' + y.toFixed(1) + '" class="grid"/>';
        out += '<text x="' + (left - 6) + '" y="' + (y + 4).toFixed(1) + '" class="tick" text-anchor="end">' + short(value) + '</text>';
      });
      out += '<text x="14" y="' + (top + plotHeight / 2) + '" class="axis" text-anchor="middle" transform="rotate(-90 14 ' + (top + plotHeight / 2) + ')">' + esc(ylabel) + '</text>';
    }
    out += '<text x="' + (left + plotWidth / 2) + '" y="' + (height - 8) + '" class="axis" text-anchor="middle">time since ' + esc(D.origin || 'the first event') + ' (s)</text>';
    return { svg: out, plotWidth: plotWidth, plotHeight: plotHeight };
  }
  // Columns over the window: [first bin, last bin + 1) joined so that no column is narrower
  // than about three pixels.
  function columns(plotWidth) {
    var first = Math.max(0, Math.floor(state.t0 / D.bin_s));
    var last = Math.min(D.bins, Math.ceil(state.t1 / D.bin_s));
    var per = Math.max(1, Math.ceil((last - first) / (plotWidth / 3)));
    var out = [];
    for (var start = first; start < last; start += per) { out.push([start, Math.min(last, start + per)]); }
    return out;
  }
  function sum(values, column) {
    var total = 0;
    for (var i = column[0]; i < column[1]; i++) { total += values[i] || 0; }
    return total;
  }
  function selected() {
    if (state.pid === null) { return D.total; }
    for (var i = 0; i < D.processes.length; i++) { if (i === state.pid) { return D.processes[i].bins; } }
    return D.total;
  }
  function place(id, svg, height, left, plotWidth) {
    var figure = document.getElementById(id);
    if (!figure) { return; }
    var old = figure.querySelector('svg');
    var markup = '<svg viewBox="0 0 ' + W + ' ' + height + '" width="' + W + '" height="' + height + '" role="img" data-left="' + left + '" data-plot-width="' + plotWidth + '" data-t0="' + state.t0 + '" data-t1="' + state.t1 + '" class="zoomable">' + svg + '</svg>';
    var holder = document.createElement('div');
    holder.innerHTML = markup;
    var fresh = holder.firstChild;
    if (old) { figure.replaceChild(fresh, old); } else { figure.appendChild(fresh); }
    attach(fresh);
  }
  // What one drawn column spans: a bin, or bins joined to fit the width.
  function widths(cols) {
    var per = cols.length ? cols[0][1] - cols[0][0] : 1;
    var bin = D.bin_s.toPrecision(3) + ' s';
    return per > 1 ? 'columns of ' + (per * D.bin_s).toPrecision(3) + ' s, ' + per + ' bins of ' + bin + ' joined' : 'bins of ' + bin;
  }
  // Replaces what follows a figure's bold title with `text`.
  function caption(id, text) {
    var figure = document.getElementById(id);
    var node = figure && figure.querySelector('figcaption');
    if (!node) { return; }
    var title = node.querySelector('strong');
    node.innerHTML = (title ? title.outerHTML + ' ' : '') + esc(text);
  }
  function lineChart(id, series, ylabel, scale, note) {
    var height = 280, left = 70, top = 30, bottom = 50;
    var cols = columns(W - left - 20);
    var values = series.map(function (entry) {
      return cols.map(function (column) { return sum(entry[2], column) / ((column[1] - column[0]) * D.bin_s) * scale; });
    });
    var most = 0;
    values.forEach(function (list) { list.forEach(function (value) { most = Math.max(most, value); }); });
    var ymax = niceMax(most);
    var f = frame(height, left, top, bottom, ymax, ylabel);
    var out = f.svg, span = state.t1 - state.t0;
    values.forEach(function (list, index) {
      var points = list.map(function (value, i) {
        var middle = (cols[i][0] + cols[i][1]) / 2 * D.bin_s;
        return (left + (middle - state.t0) / span * f.plotWidth).toFixed(1) + ',' + (top + f.plotHeight - value / ymax * f.plotHeight).toFixed(1);
      });
      out += '<polyline class="series" fill="none" stroke="' + series[index][1] + '" stroke-width="2" points="' + points.join(' ') + '"/>';
    });
    out += legend(series.map(function (entry) { return [entry[1], entry[0]]; }), left);
    place(id, out, height, left, f.plotWidth);
    if (note) { caption(id, '(' + note + '; ' + widths(cols) + ')'); }
  }
  function timeline() {
    var rows = D.processes.filter(function (process, index) { return state.pid === null || index === state.pid; });
    if (!rows.length) { return; }
    // Room on the left for the longest label (11 px type, under 6.6 px a character), within
    // bounds; a longer label is cut with an ellipsis and named whole by its tooltip.
    var longest = 0;
    rows.forEach(function (process) { longest = Math.max(longest, process.label.length); });
    var left = Math.min(LABEL_MOST, Math.max(90, Math.ceil(12 + 6.6 * longest)));
    var fits = Math.floor((left - 12) / 6.6 + 1e-6);
    var rowHeight = 18, top = 34, bottom = 46;
    var height = top + bottom + rowHeight * rows.length;
    var f = frame(height, left, top, bottom, null, '');
    var cols = columns(f.plotWidth), span = state.t1 - state.t0, out = f.svg, room = rowHeight - 2;
    rows.forEach(function (process, row) {
      var y = top + rowHeight * row;
      var shown = process.label.length > fits ? '\u2026' + process.label.slice(process.label.length - fits + 1) : process.label;
      out += '<g class="row" data-label="' + esc(process.label) + '"><text x="' + (left - 6) + '" y="' + (y + 13) + '" class="tick row-label" text-anchor="end"><title>' + esc(process.label) + '</title>' + esc(shown) + '</text>';
      cols.forEach(function (column) {
        var seconds = (column[1] - column[0]) * D.bin_s;
        var x0 = Math.max(state.t0, column[0] * D.bin_s), x1 = Math.min(state.t1, column[1] * D.bin_s);
        var x = left + (x0 - state.t0) / span * f.plotWidth, width = Math.max(1, (x1 - x0) / span * f.plotWidth);
        var shares = [sum(process.bins.compute, column) / seconds, sum(process.bins.io, column) / seconds];
        var heights = shares.map(function (share) { return share > 0 ? Math.max(2, Math.min(1, share) * room) : 0; });
        if (heights[0] + heights[1] > room) {
          var factor = room / (heights[0] + heights[1]);
          heights = heights.map(function (value) { return Math.max(1, value * factor); });
        }
        if (heights[0] > 0) { out += '<rect x="' + x.toFixed(2) + '" y="' + (y + rowHeight - 1 - heights[0]).toFixed(2) + '" width="' + width.toFixed(2) + '" height="' + heights[0].toFixed(2) + '" fill="' + COMPUTE + '"/>'; }
        if (heights[1] > 0) { out += '<rect x="' + x.toFixed(2) + '" y="' + (y + 1).toFixed(2) + '" width="' + width.toFixed(2) + '" height="' + heights[1].toFixed(2) + '" fill="' + IO + '" fill-opacity="0.85"/>'; }
      });
      out += '</g>';
    });
    out += legend(D.by_rank ? [[IO, 'I/O']] : [[COMPUTE, 'compute'], [IO, 'I/O']], left);
    place('chart-timeline', out, height, left, f.plotWidth);
    caption('chart-timeline', '(' + rows.length + ' of ' + D.process_count + (D.by_rank ? ' ranks with DXT POSIX segments; ' : ' processes; ') + widths(cols) + ')');
  }
  function offsets() {
    var A = D.accesses;
    if (!A || !document.getElementById('chart-offsets')) { return; }
    var height = 320, left = 80, top = 30, bottom = 50;
    var chosen = [];
    for (var i = 0; i < A.t.length; i++) {
      if (A.t[i] + A.d[i] < state.t0 || A.t[i] > state.t1) { continue; }
      if (state.pid !== null && A.p[i] !== D.processes[state.pid].pid) { continue; }
      if (state.file !== null && A.f[i] !== state.file) { continue; }
      chosen.push(i);
    }
    var most = 0;
    chosen.forEach(function (i) { most = Math.max(most, A.o[i] + A.b[i]); });
    // Offsets in the binary unit of the largest (as every size of the report), so a tick reads
    // 64 MiB and not 67.1M bytes.
    var unit = [[1073741824, 'GiB'], [1048576, 'MiB'], [1024, 'KiB'], [1, 'bytes']].filter(function (entry) { return most >= entry[0]; })[0] || [1, 'bytes'];
    var ymax = niceMax(most / unit[0]) * unit[0];
    var f = frame(height, left, top, bottom, ymax / unit[0], 'offset (' + unit[1] + ')');
    var out = f.svg, span = state.t1 - state.t0, stride = Math.max(1, Math.ceil(chosen.length / 20000));
    var slow = 0;
    chosen.forEach(function (i, index) {
      if (index % stride && !A.s[i]) { return; }
      var x = left + (A.t[i] - state.t0) / span * f.plotWidth;
      var y = top + f.plotHeight - A.o[i] / ymax * f.plotHeight;
      var width = Math.max(2, A.d[i] / span * f.plotWidth);
      var title = (A.w[i] ? 'write ' : 'read ') + A.b[i] + ' B at ' + A.o[i] + ', ' + (A.d[i] * 1e3).toFixed(3) + ' ms, pid ' + A.p[i] + ', ' + (A.files[A.f[i]] || '');
      if (A.s[i]) {
        slow += 1;
        out += '<rect class="point slow" x="' + (x - 1).toFixed(1) + '" y="' + (y - 3).toFixed(1) + '" width="' + (width + 2).toFixed(1) + '" height="6" fill="none" stroke="' + SLOW + '" stroke-width="1.5"><title>slowest 5 %: ' + esc(title) + '</title></rect>';
      } else {
        out += '<rect class="point" x="' + x.toFixed(1) + '" y="' + (y - 2).toFixed(1) + '" width="' + width.toFixed(1) + '" height="4" fill="' + (A.w[i] ? IO : COMPUTE) + '"><title>' + esc(title) + '</title></rect>';
      }
    });
    out += legend([[COMPUTE, 'read'], [IO, 'write'], [SLOW, 'slowest 5 %']], left);
    place('chart-offsets', out, height, left, f.plotWidth);
    drawn.offsets = chosen.length;
    drawn.slow = slow;
  }
  function rankZero() {
    var Z = D.rank_zero;
    if (!Z || !document.getElementById('chart-rank-zero')) { return; }
    lineChart('chart-rank-zero', [['rank 0', IO, Z.io], ['others, mean', COMPUTE, Z.others_mean], ['others, most', THIRD, Z.others_most]], 'I/O s per s', 1, 'seconds of I/O per second, its threads summed, so above 1 when calls overlap: rank 0 against the mean and the most of the other ' + Z.others + (D.by_rank ? ' ranks' : ' processes'));
  }
  function flame() {
    var T = D.tree, figure = document.getElementById('chart-flame');
    if (!T || !figure || !T.n.length) { return; }
    var children = {}, depth = [], total = 0;
    T.p.forEach(function (parent, node) {
      (children[parent] = children[parent] || []).push(node);
      depth[node] = parent < 0 ? 0 : depth[parent] + 1;
      if (parent < 0) { total += T.i[node]; }
    });
    Object.keys(children).forEach(function (key) { children[key].sort(function (a, b) { return T.i[b] - T.i[a] || a - b; }); });
    var focus = state.focus, rowHeight = 18, top = 24;
    var base = focus < 0 ? 0 : depth[focus] + 1, chain = [];
    for (var at = focus; at >= 0; at = T.p[at]) { chain.unshift(at); }
    var deepest = 0;
    depth.forEach(function (value) { deepest = Math.max(deepest, value); });
    var height = top + rowHeight * (deepest + 2) + 10;
    var out = '<text x="0" y="16" class="legend">' + esc(focus < 0 ? 'all events' : 'in ' + chain.map(function (node) { return T.names[T.n[node]]; }).join(' > ')) + '</text>';
    var frames = [];
    var width = focus < 0 ? total : T.i[focus];
    function bar(node, x, w, row, isChain) {
      var name = T.names[T.n[node]];
      var hue = (T.n[node] * 47) % 360;
      out += '<g class="frame" data-node="' + node + '" data-name="' + esc(name) + '"><rect x="' + x.toFixed(2) + '" y="' + (top + row * rowHeight) + '" width="' + Math.max(0.5, w - 0.5).toFixed(2) + '" height="' + (rowHeight - 1) + '" fill="hsl(' + hue + ',60%,' + (isChain ? 80 : 62) + '%)"><title>' + esc(name) + ': ' + T.i[node].toFixed(6) + ' s inclusive, ' + T.e[node].toFixed(6) + ' s exclusive, ' + T.c[node] + ' events</title></rect>';
      if (w > 40) { out += '<text x="' + (x + 3).toFixed(1) + '" y="' + (top + row * rowHeight + 13) + '" class="tick frame-label">' + esc(name.length * 6.5 > w - 6 ? name.slice(0, Math.max(1, Math.floor((w - 6) / 6.5) - 1)) + '…' : name) + '</text>'; }
      out += '</g>';
    }
    chain.forEach(function (node, row) { bar(node, 0, W, row, true); });
    function walk(parent, x, row) {
      (children[parent] || []).forEach(function (node) {
        var w = width > 0 ? T.i[node] / width * W : 0;
        if (w >= 0.5) {
          bar(node, x, w, row, false);
          if (row === chain.length) { frames.push(T.names[T.n[node]]); }
          walk(node, x, row + 1);
        }
        x += w;
      });
    }
    walk(focus < 0 ? -1 : focus, 0, chain.length);
    var holder = document.createElement('div');
    holder.innerHTML = '<svg viewBox="0 0 ' + W + ' ' + height + '" width="' + W + '" height="' + height + '" role="img">' + out + '</svg>';
    var fresh = holder.firstChild, old = figure.querySelector('svg');
    if (old) { figure.replaceChild(fresh, old); } else { figure.appendChild(fresh); }
    fresh.addEventListener('click', function (event) {
      var group = event.target.closest ? event.target.closest('g.frame') : null;
      if (!group) { return; }
      var node = Number(group.getAttribute('data-node'));
      state.focus = node === state.focus ? T.p[node] : node;
      flame();
    });
    drawn.top_frames = frames;
  }
  function draw() {
    var B = selected();
    timeline();
    lineChart('chart-bandwidth', [['read MiB/s', COMPUTE, B.read_bytes], ['write MiB/s', IO, B.write_bytes]], 'MiB/s', 1 / 1048576, 'bytes moved per second of wall time');
    lineChart('chart-operations', [['reads/s', COMPUTE, B.read], ['writes/s', IO, B.write], ['metadata/s', SECOND, B.metadata]], 'operations/s', 1, 'calls per second of wall time');
    rankZero();
    offsets();
    var text = document.getElementById('drill-window');
    if (text) { text.textContent = 'showing ' + state.t0.toFixed(6) + ' to ' + state.t1.toFixed(6) + ' s'; }
  }
  function zoom(t0, t1) {
    var whole = D.job_s > 0 ? D.job_s : 1, least = Math.min(whole, Math.max(D.bin_s, whole * 1e-6));
    if (t1 - t0 < least) { var middle = (t0 + t1) / 2; t0 = middle - least / 2; t1 = middle + least / 2; }
    if (t1 - t0 > whole) { t0 = 0; t1 = whole; }
    if (t0 < 0) { t1 -= t0; t0 = 0; }
    if (t1 > whole) { t0 -= t1 - whole; t1 = whole; }
    state.t0 = Math.max(0, t0);
    state.t1 = t1;
    draw();
  }
  function timeAt(svg, clientX) {
    var box = svg.getBoundingClientRect(), left = Number(svg.getAttribute('data-left')), plotWidth = Number(svg.getAttribute('data-plot-width'));
    var x = (clientX - box.left) * W / Math.max(1, box.width);
    return state.t0 + Math.min(1, Math.max(0, (x - left) / plotWidth)) * (state.t1 - state.t0);
  }
  function attach(svg) {
    svg.addEventListener('wheel', function (event) {
      event.preventDefault();
      var at = timeAt(svg, event.clientX), factor = event.deltaY < 0 ? 0.8 : 1.25;
      zoom(at - (at - state.t0) * factor, at + (state.t1 - at) * factor);
    }, { passive: false });
    svg.addEventListener('mousedown', function (event) {
      var from = event.clientX, t0 = state.t0, t1 = state.t1, box = svg.getBoundingClientRect();
      var perPixel = (t1 - t0) / (Number(svg.getAttribute('data-plot-width')) * box.width / W);
      function move(inner) { var shift = (from - inner.clientX) * perPixel; zoom(t0 + shift, t1 + shift); }
      function up() { window.removeEventListener('mousemove', move); window.removeEventListener('mouseup', up); }
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
      event.preventDefault();
    });
    svg.addEventListener('dblclick', function () { zoom(0, D.job_s); });
  }
  function button(id, action) { var element = document.getElementById(id); if (element) { element.addEventListener('click', action); } }
  button('drill-in', function () { var middle = (state.t0 + state.t1) / 2, half = (state.t1 - state.t0) / 4; zoom(middle - half, middle + half); });
  button('drill-out', function () { var middle = (state.t0 + state.t1) / 2, half = state.t1 - state.t0; zoom(middle - half, middle + half); });
  button('drill-reset', function () { zoom(0, D.job_s); });
  var processes = document.getElementById('drill-process');
  if (processes) { processes.addEventListener('change', function () { state.pid = processes.value === '' ? null : Number(processes.value); draw(); }); }
  var files = document.getElementById('drill-file');
  if (files) { files.addEventListener('change', function () { state.file = files.value === '' ? null : Number(files.value); offsets(); }); }
  draw();
  flame();

  // What is drawn now, for the headless-browser test (tests/report/check.py).
  function snapshot() {
    var windows = [];
    document.querySelectorAll('svg.zoomable').forEach(function (svg) { windows.push([svg.parentNode.id, Number(svg.getAttribute('data-t0')), Number(svg.getAttribute('data-t1'))]); });
    var bandwidth = document.querySelector('#chart-bandwidth svg');
    return {
      t0: state.t0, t1: state.t1, windows: windows,
      ticks: bandwidth ? Array.from(bandwidth.querySelectorAll('text.x-tick')).map(function (t) { return t.textContent; }) : [],
      offsets: drawn.offsets || 0, slow: drawn.slow || 0,
      timeline_rows: document.querySelectorAll('#chart-timeline g.row').length,
      top_frames: drawn.top_frames || []
    };
  }
  window.ioscoutDrill = { zoom: zoom, snapshot: snapshot };
  if (location.hash === '#check-drill') {
    var check = { before: snapshot() };
    var target = document.querySelector('#chart-bandwidth svg');
    if (target) {
      var box = target.getBoundingClientRect();
      for (var step = 0; step < 6; step++) {
        target.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: box.left + box.width * 0.3, clientY: box.top + box.height / 2, bubbles: true, cancelable: true }));
      }
    }
    check.zoomed = snapshot();
    if (processes && processes.options.length > 1) {
      processes.value = processes.options[1].value;
      processes.dispatchEvent(new Event('change'));
      check.filtered = snapshot();
      processes.value = '';
      processes.dispatchEvent(new Event('change'));
    }
    zoom(0, D.job_s);
    var firstFrame = document.querySelector('#chart-flame g.frame');
    if (firstFrame) {
      check.flame_clicked = firstFrame.getAttribute('data-name');
      firstFrame.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      check.flame_zoomed = snapshot().top_frames;
      state.focus = -1;
      flame();
    }
    document.getElementById('drill-check').textContent = JSON.stringify(check);
  }
})();
