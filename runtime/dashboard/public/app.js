// The dashboard page: one snapshot, then live changes from /dashboard/v1/events (Server-Sent Events).
import { COLORS, drawPlot } from './plot.js';

const $ = (id) => document.getElementById(id);
const state = {
  windowMs: 600000,
  nowMs: Number.NaN,
  sensors: new Map(),
  series: new Map(),
  heaters: new Map(),
  limits: {},
  safety: null,
  execution: null,
  cooking: null,
  sessions: [],
  tasks: [],
  notices: [],
  /** Notices dismissed on this screen (the hub keeps them until someone acknowledges them). */
  dismissed: new Set(),
};
let plotQueued = false;

/** What a trip means, for a cook: a headline and, when the device gave no hint, what to do. */
const TRIPS = {
  estop: ['Emergency stop pressed', 'Make sure nothing is burning and the cooker area is safe.'],
  over_limit: ['Too hot: heat was cut', 'Leave the pot where it is and let it cool down. Do not add water to hot oil.'],
  thermal_runaway: ['Heating out of control: heat was cut', 'Switch the appliance off at the wall and let it cool.'],
  heating_while_off: ['Heating while it should be off', 'Switch the appliance off at the wall; the heater may be stuck on.'],
  sensor_fault: ['A temperature sensor stopped working', 'Check that the probe is plugged in and in the pot.'],
  stale_reading: ['A temperature sensor went quiet', 'Check that the probe is plugged in and in the pot.'],
  out_of_range_reading: ['A temperature reading is impossible', 'Check the probe: it may be loose or broken.'],
  implausible_pair: ['Two thermometers disagree', 'Check both probes are in the same pot and clean.'],
  watchdog: ['The controller stalled: heat was cut', 'Check the cooker is safe; the hub may need a restart.'],
  limit_raise_attempt: ['Someone tried to raise a safety limit', 'Nothing changed; limits can only be tightened.'],
};

const MEDIUM = { oil: 'Oil', water: 'Water', pan_surface: 'Pan surface', liquid: 'Liquid', food_core: 'Food core', air: 'Oven air' };

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

function words(id) {
  const s = String(id).replaceAll('_', ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `1 h 05 min`, `4 min`, `40 s`. */
export function duration(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '—';
  const n = Math.max(0, Math.round(s));
  if (n < 60) return `${n} s`;
  const m = Math.round(n / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** A sensor in words: its medium ("Oil"), with the id when two sensors watch the same medium. */
function sensorName(id) {
  const s = state.sensors.get(id);
  if (!s) return words(id);
  const base = MEDIUM[s.medium] ?? words(s.medium);
  const twins = [...state.sensors.values()].filter((x) => x.medium === s.medium).length;
  return twins > 1 ? `${base} (${id})` : base;
}

function sensorNames() {
  return new Map([...state.sensors.keys()].map((id) => [id, sensorName(id)]));
}

function sensorColors() {
  return new Map([...state.sensors.keys()].map((id, i) => [id, COLORS[i % COLORS.length]]));
}

function renderTemps() {
  const list = $('temps');
  const colors = sensorColors();
  for (const [id, s] of state.sensors) {
    let el = list.querySelector(`li[data-sensor="${CSS.escape(id)}"]`);
    if (!el) {
      el = document.createElement('li');
      el.dataset.sensor = id;
      el.innerHTML =
        '<span class="swatch"></span><span class="name"></span> <span class="value"></span><span class="limit-note muted"></span>';
      el.querySelector('.swatch').style.background = colors.get(id);
      el.querySelector('.name').textContent = sensorName(id);
      list.append(el);
    }
    const v = el.querySelector('.value');
    const r = s.latest;
    if (!r) text(v, '—');
    else if (r.fault || r.tempC === null) text(v, `fault: ${r.fault ?? 'no reading'}`);
    else text(v, `${r.tempC.toFixed(1)} °C`);
    v.classList.toggle('fault', Boolean(r?.fault));
    el.dataset.temp = r && r.tempC !== null ? String(r.tempC) : '';
    const l = state.limits[id];
    text(el.querySelector('.limit-note'), l ? `limit ${l.maxC} °C` : '');
  }
  queuePlot();
}

function renderHeaters() {
  $('heaters').replaceChildren(
    ...[...state.heaters].map(([id, h]) =>
      li(`${words(id)}: ${h.power > 0 ? `on, ${Math.round(h.power * 100)} %` : 'off'}`, {
        'data-heater': id,
        'data-power': String(h.power),
      }),
    ),
  );
}

function renderSafety() {
  const s = state.safety;
  if (!s) return;
  const el = $('safety');
  el.dataset.latched = String(s.latched);
  text(el, s.latched ? 'STOPPED — heat is cut and stays off until a person resets it' : 'OK — no safety stop');
  $('safety-banner').hidden = !s.latched;
  document.body.dataset.latched = String(s.latched);
  if (!s.trip) {
    if (s.latched) {
      text($('banner-title'), 'Safety stop: heat is cut');
      text($('banner-message'), '');
      text($('banner-todo'), 'Check the cooker is safe before anyone resets the stop.');
      text($('banner-detail'), '');
    }
    return;
  }
  const [headline, todo] = TRIPS[s.trip.reason] ?? [words(s.trip.reason), 'Check the cooker is safe before anyone resets the stop.'];
  $('safety-banner').dataset.reason = s.trip.reason;
  text($('banner-title'), headline);
  text($('banner-message'), s.trip.message);
  text($('banner-todo'), s.trip.hint || todo);
  text($('banner-detail'), `Stopped at ${new Date(s.trip.at).toLocaleTimeString()} · ${s.trip.subject}`);
}

function renderExecution() {
  const e = state.execution;
  const c = state.cooking;
  const human = e?.state === 'needs_human' && e.humanNeeded;
  $('human-banner').hidden = !human;
  if (human) text($('human-why'), e.humanNeeded.why);
  if (!e) {
    text($('execution'), 'Nothing is cooking.');
    text($('recipe-title'), '');
    $('execution').dataset.state = 'idle';
    $('now-step').hidden = true;
    $('steps-box').hidden = true;
    return;
  }
  $('execution').dataset.state = e.state;
  text($('recipe-title'), c?.title ?? '');
  const STATES = {
    accepted: 'Getting ready',
    preparing: 'Getting ready',
    running: 'In progress',
    paused: 'Paused',
    needs_human: 'Waiting for you',
    stopping: 'Stopping',
    stopped: 'Stopped',
    completed: 'Done — enjoy!',
    failed: 'Could not finish',
    refused: 'Refused',
  };
  text($('execution'), `${STATES[e.state] ?? words(e.state)}${e.refusal ? `: ${words(e.refusal.reason)}` : ''}`);
  const step = c && c.current >= 0 ? c.steps[c.current] : undefined;
  $('now-step').hidden = !step;
  if (step) {
    text($('step'), `Step ${c.current + 1} of ${c.steps.length}: ${step.name}`);
    text($('step-text'), step.text ?? '');
    $('step-bar').style.width = `${Math.round((e.step?.progress ?? 0) * 100)}%`;
    text($('step-left'), `${duration(c.stepLeftS)} left`);
    text($('recipe-left'), `${duration(c.recipeLeftS)} left`);
    text($('ready'), e.eta ? `Ready at about ${new Date(e.eta).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}` : '');
  }
  $('steps-box').hidden = !c;
  if (c) {
    $('steps').replaceChildren(
      ...c.steps.map((s, i) => {
        const done = c.current < 0 ? e.state === 'completed' : i < c.current;
        const item = li(`${s.name}${s.text ? ` — ${s.text}` : ''} (${duration(s.plannedS)})`, {
          'data-node': s.node,
          'data-state': i === c.current ? 'current' : done ? 'done' : 'next',
        });
        return item;
      }),
    );
  }
}

function renderSessions() {
  $('sessions').replaceChildren(
    ...state.sessions.map((s) =>
      li(`${s.id}: ${words(s.state)}, ${s.recipes.length} recipe(s), serve at ${new Date(s.serveAt).toLocaleTimeString()}`),
    ),
  );
  $('tasks').replaceChildren(...state.tasks.map((t) => li(`${words(t.kind)} (${t.state}): ${langText(t.message)}`)));
  if (state.sessions.length === 0) $('sessions').replaceChildren(li('No sessions.', { class: 'muted' }));
}

const URGENCY = { info: 'Note', action_needed: 'Please', time_critical: 'Soon', emergency: 'Emergency' };

/** The household's notifications: a toast each (an emergency as an alert), newest first, until dismissed here. */
function renderNotices() {
  const box = $('notices');
  const shown = state.notices.filter((n) => !state.dismissed.has(n.id)).reverse();
  box.replaceChildren(
    ...shown.map((n) => {
      const el = document.createElement('div');
      el.className = 'notice';
      el.dataset.id = n.id;
      el.dataset.urgency = n.urgency;
      if (n.urgency === 'emergency' || n.urgency === 'time_critical') el.setAttribute('role', 'alert');
      const p = document.createElement('p');
      const what = document.createElement('strong');
      what.textContent = `${URGENCY[n.urgency] ?? 'Note'}: `;
      const msg = document.createElement('span');
      msg.className = 'message';
      msg.textContent = langText(n.message);
      const when = document.createElement('span');
      when.className = 'when';
      when.textContent = ` (${new Date(n.at).toLocaleTimeString()}, from ${n.from === 'human' ? 'a person' : n.from === 'agent' ? 'an agent' : n.from})`;
      p.append(what, msg, when);
      const dismiss = document.createElement('button');
      dismiss.type = 'button';
      dismiss.textContent = 'Dismiss';
      dismiss.addEventListener('click', () => {
        state.dismissed.add(n.id);
        renderNotices();
      });
      el.append(p, dismiss);
      return el;
    }),
  );
  box.hidden = shown.length === 0;
}

function queuePlot() {
  if (plotQueued) return;
  plotQueued = true;
  requestAnimationFrame(() => {
    plotQueued = false;
    drawPlot($('plot'), {
      series: state.series,
      windowMs: state.windowMs,
      limits: state.limits,
      names: sensorNames(),
      colors: sensorColors(),
      nowMs: state.nowMs,
    });
  });
}

function applySnapshot(s) {
  text($('device'), `${s.device.vendor} ${s.device.model}`);
  state.windowMs = s.windowMs;
  state.nowMs = Date.parse(s.now);
  state.sensors = new Map(s.sensors.map((x) => [x.id, { medium: x.medium, latest: x.latest }]));
  state.series = new Map(s.sensors.map((x) => [x.id, x.history]));
  state.heaters = new Map(s.heaters.map((h) => [h.id, { power: h.power }]));
  state.limits = s.limits ?? {};
  state.safety = s.safety;
  state.execution = s.execution;
  state.cooking = s.cooking ?? null;
  state.sessions = s.sessions;
  state.tasks = s.tasks;
  state.notices = s.notices ?? [];
  $('temps').replaceChildren();
  renderTemps();
  renderHeaters();
  renderSafety();
  renderExecution();
  renderSessions();
  renderNotices();
}

function onTelemetry(m) {
  const s = state.sensors.get(m.sensor);
  if (!s) return;
  s.latest = { tempC: m.tempC, fault: m.fault, at: m.at };
  const points = state.series.get(m.sensor) ?? [];
  const t = Date.parse(m.at);
  if (!(t <= state.nowMs)) state.nowMs = t;
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
      state.cooking = m.cooking ?? null;
      if (m.limits) state.limits = m.limits;
      renderTemps();
      return renderExecution();
    case 'sessions':
      state.sessions = m.sessions;
      state.tasks = m.tasks;
      return renderSessions();
    case 'notices':
      state.notices = m.notices;
      return renderNotices();
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
