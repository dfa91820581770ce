// The dashboard page: one snapshot, then live changes from /dashboard/v1/events (Server-Sent Events).
import { COLORS, drawPlot } from './plot.js';

const $ = (id) => document.getElementById(id);
const state = {
  windowMs: 600000,
  sensors: new Map(),
  series: new Map(),
  heaters: new Map(),
  safety: null,
  execution: null,
  sessions: [],
  tasks: [],
};
let plotQueued = false;

function text(el, value) {
  if (el.textContent !== value) el.textContent = value;
}

function li(content, attrs = {}) {
  const el = document.createElement('li');
  el.textContent = content;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function langText(m) {
  if (typeof m === 'string') return m;
  if (m && typeof m === 'object') return m.en ?? Object.values(m)[0] ?? '';
  return '';
}

function renderTemps() {
  const list = $('temps');
  let i = 0;
  for (const [id, s] of state.sensors) {
    let el = list.querySelector(`li[data-sensor="${CSS.escape(id)}"]`);
    if (!el) {
      el = document.createElement('li');
      el.dataset.sensor = id;
      el.innerHTML = '<span class="swatch"></span><span class="name"></span> <span class="value"></span>';
      el.querySelector('.swatch').style.background = COLORS[i % COLORS.length];
      el.querySelector('.name').textContent = `${id} (${s.medium})`;
      list.append(el);
    }
    i++;
    const v = el.querySelector('.value');
    const r = s.latest;
    if (!r) text(v, '—');
    else if (r.fault || r.tempC === null) text(v, `fault: ${r.fault ?? 'no reading'}`);
    else text(v, `${r.tempC.toFixed(1)} °C`);
    v.classList.toggle('fault', Boolean(r?.fault));
    el.dataset.temp = r && r.tempC !== null ? String(r.tempC) : '';
  }
  queuePlot();
}

function renderHeaters() {
  const list = $('heaters');
  list.replaceChildren(
    ...[...state.heaters].map(([id, h]) => {
      const el = li(`${id}: ${h.power > 0 ? `on, ${Math.round(h.power * 100)} %` : 'off'}`, {
        'data-heater': id,
        'data-power': String(h.power),
      });
      return el;
    }),
  );
}

function renderSafety() {
  const s = state.safety;
  const el = $('safety');
  if (!s) return;
  el.dataset.latched = String(s.latched);
  text(el, s.latched ? 'STOPPED — heat is cut and stays off until a person resets it' : 'OK — no safety stop');
  $('trip').hidden = !s.trip;
  if (s.trip) {
    text($('trip-reason'), s.trip.reason.replaceAll('_', ' '));
    text($('trip-subject'), `(${s.trip.subject}, ${new Date(s.trip.at).toLocaleTimeString()})`);
    text($('trip-message'), s.trip.message);
    text($('trip-hint'), s.trip.hint);
  }
}

function renderExecution() {
  const e = state.execution;
  if (!e) {
    text($('execution'), 'Nothing is cooking.');
    text($('step'), '');
    $('execution').dataset.state = 'idle';
    return;
  }
  $('execution').dataset.state = e.state;
  text($('execution'), `${e.id}: ${e.state}${e.refusal ? ` (refused: ${e.refusal.reason})` : ''}`);
  const s = e.step;
  text(
    $('step'),
    s
      ? `step ${s.node}: ${s.op}, ${Math.round((s.progress ?? 0) * 100)} %${e.humanNeeded ? ` — needs a person: ${e.humanNeeded.why}` : ''}`
      : '',
  );
}

function renderSessions() {
  $('sessions').replaceChildren(
    ...state.sessions.map((s) =>
      li(`${s.id}: ${s.state}, ${s.recipes.length} recipe(s), serve at ${new Date(s.serveAt).toLocaleTimeString()}`),
    ),
  );
  $('tasks').replaceChildren(...state.tasks.map((t) => li(`${t.kind} (${t.state}): ${langText(t.message)}`)));
  if (state.sessions.length === 0) $('sessions').replaceChildren(li('No sessions.', { class: 'muted' }));
}

function queuePlot() {
  if (plotQueued) return;
  plotQueued = true;
  requestAnimationFrame(() => {
    plotQueued = false;
    drawPlot($('plot'), state.series, state.windowMs);
  });
}

function applySnapshot(s) {
  text($('device'), `${s.device.vendor} ${s.device.model}`);
  state.windowMs = s.windowMs;
  state.sensors = new Map(s.sensors.map((x) => [x.id, { medium: x.medium, latest: x.latest }]));
  state.series = new Map(s.sensors.map((x) => [x.id, x.history]));
  state.heaters = new Map(s.heaters.map((h) => [h.id, { power: h.power }]));
  state.safety = s.safety;
  state.execution = s.execution;
  state.sessions = s.sessions;
  state.tasks = s.tasks;
  $('temps').replaceChildren();
  renderTemps();
  renderHeaters();
  renderSafety();
  renderExecution();
  renderSessions();
}

function onTelemetry(m) {
  const s = state.sensors.get(m.sensor);
  if (!s) return;
  s.latest = { tempC: m.tempC, fault: m.fault, at: m.at };
  const points = state.series.get(m.sensor) ?? [];
  const t = Date.parse(m.at);
  const last = points.at(-1);
  if (last && Math.floor(last[0] / 1000) === Math.floor(t / 1000)) last[1] = m.tempC;
  else points.push([t, m.tempC]);
  while (points.length > 0 && points[0][0] < t - state.windowMs) points.shift();
  state.series.set(m.sensor, points);
  renderTemps();
}

function handle(m) {
  switch (m.type) {
    case 'snapshot':
      return applySnapshot(m.snapshot);
    case 'telemetry':
      return onTelemetry(m);
    case 'heater':
      state.heaters.set(m.heater, { power: m.power });
      return renderHeaters();
    case 'safety':
      state.safety = m.safety;
      return renderSafety();
    case 'execution':
      state.execution = m.execution;
      return renderExecution();
    case 'sessions':
      state.sessions = m.sessions;
      state.tasks = m.tasks;
      return renderSessions();
  }
}

function connect() {
  const link = $('link');
  const es = new EventSource('/dashboard/v1/events');
  es.onopen = () => {
    link.dataset.state = 'live';
    text(link, 'live');
  };
  es.onerror = () => {
    link.dataset.state = 'down';
    text(link, 'reconnecting…');
  };
  es.onmessage = (ev) => {
    try {
      handle(JSON.parse(ev.data));
    } catch (err) {
      console.error('bad dashboard message', err);
    }
  };
}

async function estop() {
  const out = $('estop-result');
  text(out, 'Stopping…');
  try {
    const res = await fetch('/dashboard/v1/estop', { method: 'POST' });
    const body = await res.json().catch(() => ({}));
    if (res.ok) {
      text(out, 'Heat cut. The stop stays latched until a person resets it.');
      if (body.safety) {
        state.safety = body.safety;
        renderSafety();
      }
    } else text(out, `The stop was not accepted here (${body.detail ?? res.status}). Use the physical button.`);
  } catch {
    text(out, 'Hearth did not answer. Use the physical button or switch the appliance off at the wall.');
  }
}

$('estop').addEventListener('click', estop);
window.addEventListener('resize', queuePlot);
connect();
