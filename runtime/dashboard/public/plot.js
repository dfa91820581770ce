// Temperature chart as SVG: one line per sensor over the last `windowMs` of device time, a °C axis, a time
// axis in minutes before now, and the limit in force on each sensor drawn as a dashed line with its value.
export const COLORS = ['#d9480f', '#1971c2', '#2b8a3e', '#ae3ec9', '#e67700', '#0c8599'];
const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function niceStep(span) {
  for (const s of [5, 10, 20, 25, 50, 100]) if (span / s <= 6) return s;
  return 200;
}

/**
 * host: the element to draw in. series: Map<sensorId, Array<[timeMs, tempC|null]>>. limits: {sensorId: {maxC, label}}.
 * names: Map<sensorId, words>. colors: Map<sensorId, colour>. nowMs: device time at the right edge.
 */
export function drawPlot(host, { series, windowMs, limits, names, colors, nowMs }) {
  const w = Math.max(280, host.clientWidth || 600);
  const h = Math.round(Math.min(300, Math.max(210, w * 0.42)));
  const left = 52;
  const right = 12;
  const top = 14;
  const bottom = h - 44;
  const svg = el('svg', { width: w, height: h, viewBox: `0 0 ${w} ${h}`, class: 'chart' });
  let tMax = Number.isFinite(nowMs) ? nowMs : 0;
  let vMin = Number.POSITIVE_INFINITY;
  let vMax = Number.NEGATIVE_INFINITY;
  for (const points of series.values())
    for (const [t, v] of points) {
      if (t > tMax) tMax = t;
      if (v !== null) {
        vMin = Math.min(vMin, v);
        vMax = Math.max(vMax, v);
      }
    }
  const shownLimits = [];
  for (const [sensor, l] of Object.entries(limits ?? {})) {
    if (!series.has(sensor) || !Number.isFinite(l.maxC)) continue;
    const same = shownLimits.find((x) => x.maxC === l.maxC);
    if (same) same.sensors.push(sensor);
    else shownLimits.push({ ...l, sensors: [sensor] });
  }
  if (!Number.isFinite(vMin)) {
    svg.append(el('text', { x: left, y: h / 2, class: 'muted-text' }, 'Waiting for readings…'));
    host.replaceChildren(svg);
    return;
  }
  for (const l of shownLimits) vMax = Math.max(vMax, l.maxC);
  vMin = Math.min(0, Math.floor((vMin - 5) / 10) * 10);
  vMax = Math.ceil((vMax + 10) / 10) * 10;
  const tMin = tMax - windowMs;
  const x = (t) => left + ((t - tMin) / windowMs) * (w - left - right);
  const y = (v) => bottom - ((v - vMin) / (vMax - vMin)) * (bottom - top);

  // Axes, grid and tick labels.
  const step = niceStep(vMax - vMin);
  const grid = el('g', { class: 'grid' });
  const yAxis = el('g', { class: 'axis y-axis' });
  for (let v = Math.ceil(vMin / step) * step; v <= vMax; v += step) {
    grid.append(el('line', { x1: left, x2: w - right, y1: y(v), y2: y(v) }));
    yAxis.append(el('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' }, `${v}`));
  }
  yAxis.append(el('text', { x: 4, y: top + 4, class: 'axis-title', 'text-anchor': 'start' }, '°C'));
  const xAxis = el('g', { class: 'axis x-axis' });
  const minutes = Math.round(windowMs / 60000);
  const every = minutes > 6 ? 2 : 1;
  for (let m = minutes; m >= 0; m -= every) {
    const t = tMax - m * 60000;
    grid.append(el('line', { x1: x(t), x2: x(t), y1: top, y2: bottom }));
    xAxis.append(el('text', { x: x(t), y: bottom + 16, 'text-anchor': m === 0 ? 'end' : 'middle' }, m === 0 ? 'now' : `−${m}`));
  }
  xAxis.append(el('text', { x: (left + w - right) / 2, y: h - 6, class: 'axis-title', 'text-anchor': 'middle' }, 'minutes ago'));
  svg.append(grid, el('line', { x1: left, x2: left, y1: top, y2: bottom, class: 'frame' }));
  svg.append(el('line', { x1: left, x2: w - right, y1: bottom, y2: bottom, class: 'frame' }), yAxis, xAxis);

  // The limits in force: dashed red lines, labelled with the value and whose limit it is.
  for (const l of shownLimits) {
    const g = el('g', { class: 'limit', 'data-limit': l.maxC, 'data-sensors': l.sensors.join(' ') });
    g.append(el('line', { x1: left, x2: w - right, y1: y(l.maxC), y2: y(l.maxC) }));
    const who = l.sensors.map((s) => names.get(s) ?? s).join(', ');
    g.append(el('text', { x: w - right - 4, y: y(l.maxC) - 5, 'text-anchor': 'end' }, `limit ${l.maxC} °C · ${who}`));
    g.append(el('title', {}, `${l.maxC} °C: ${l.label}`));
    svg.append(g);
  }

  for (const [sensor, points] of series) {
    let d = '';
    let pen = false;
    for (const [t, v] of points) {
      if (v === null || t < tMin) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    }
    if (d) svg.append(el('path', { d, class: 'series', 'data-sensor': sensor, stroke: colors.get(sensor) ?? COLORS[0] }));
  }
  host.replaceChildren(svg);
}
