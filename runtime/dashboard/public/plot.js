// Temperature plot on a canvas: one line per sensor over the last `windowMs` of device time, with a °C axis.
export const COLORS = ['#d9480f', '#1971c2', '#2b8a3e', '#ae3ec9', '#e67700', '#0c8599'];

/** series: Map<sensorId, Array<[timeMs, tempC|null]>>; draws into canvas. */
export function drawPlot(canvas, series, windowMs) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || canvas.width;
  const cssH = Math.round(cssW / 3);
  if (canvas.width !== Math.round(cssW * dpr)) {
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const w = cssW;
  const h = cssH;
  const fg = getComputedStyle(document.body).color;
  ctx.clearRect(0, 0, w, h);
  let tMax = 0;
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
  ctx.font = '12px system-ui, sans-serif';
  ctx.fillStyle = fg;
  if (!Number.isFinite(vMin)) {
    ctx.fillText('waiting for readings…', 12, h / 2);
    return;
  }
  vMin = Math.floor((vMin - 5) / 10) * 10;
  vMax = Math.ceil((vMax + 5) / 10) * 10;
  const left = 44;
  const bottom = h - 20;
  const x = (t) => left + ((t - (tMax - windowMs)) / windowMs) * (w - left - 8);
  const y = (v) => bottom - ((v - vMin) / (vMax - vMin)) * (bottom - 8);
  ctx.globalAlpha = 0.35;
  ctx.strokeStyle = fg;
  ctx.lineWidth = 1;
  const step = Math.max(10, Math.ceil((vMax - vMin) / 5 / 10) * 10);
  for (let v = vMin; v <= vMax; v += step) {
    ctx.beginPath();
    ctx.moveTo(left, y(v));
    ctx.lineTo(w - 8, y(v));
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  for (let v = vMin; v <= vMax; v += step) ctx.fillText(`${v} °C`, 2, y(v) + 4);
  ctx.fillText(`last ${Math.round(windowMs / 60000)} min`, left, h - 4);
  let i = 0;
  for (const points of series.values()) {
    ctx.strokeStyle = COLORS[i++ % COLORS.length];
    ctx.lineWidth = 2;
    ctx.beginPath();
    let pen = false;
    for (const [t, v] of points) {
      if (v === null || t < tMax - windowMs) {
        pen = false;
        continue;
      }
      if (pen) ctx.lineTo(x(t), y(v));
      else ctx.moveTo(x(t), y(v));
      pen = true;
    }
    ctx.stroke();
  }
}
