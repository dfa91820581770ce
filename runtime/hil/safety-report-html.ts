/**
 * report.html of `hearth safety-report`: rendered from the signed report.json (so it shows what was signed):
 * who signed it and the document hash, the build, rig, machine and load, then the hazard table (hazard →
 * control → scenario → documented bound → measured → killed by mutation), then the HIL report's summary and
 * charts (report.ts).
 */
import { xmlEscape as esc } from './junit.js';
import type { PageOptions } from './report.js';

interface Proof {
  control: string;
  scenario: string;
  kind: string;
  result: string;
  skipped?: string;
  measured?: { check: string; bound: string; measured: string | null; ok: boolean }[];
  killedByMutation: string;
}

type Signed = Record<string, unknown> & { hash: string; signature: { kid: string; signedAt: string } };

const cls = (v: string) => (v === 'pass' || v === 'killed' ? 'pass' : v === 'FAIL' || v === 'SURVIVED' ? 'FAIL' : 'skip');

export function safetyReportHtml(doc: Signed): PageOptions {
  const hearth = doc.hearth as { version: string; commit: string };
  const rig = doc.rig as { file: string | null; sha256: string | null; kind: string };
  const machine = doc.machine as { hostname: string; cpus: string; node: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  const limits = doc.limitsInForce as { id?: string; version?: string } | null;
  const summary = doc.summary as { passed: number; failed: number; skipped: number; mutants: number; killed: number };
  const rows: string[] = [];
  for (const h of doc.hazards as { hazard: string; documentedBound: string; proofs: Proof[] }[]) {
    h.proofs.forEach((p, i) => {
      const measured =
        p.kind === 'hil'
          ? (p.measured ?? [])
              .filter((m) => !/^(state|outcome|refusal|trip)$/.test(m.check))
              .map(
                (m) =>
                  `<span class="${m.ok ? 'pass' : 'FAIL'}">${m.ok ? '✓' : '✗'}</span> ${esc(m.bound)}: <b>${esc(m.measured ?? 'nothing')}</b>`,
              )
              .join('<br>') || (p.skipped ? esc(p.skipped) : '—')
          : '—';
      rows.push(
        `<tr>${i === 0 ? `<td rowspan="${h.proofs.length}">${esc(h.hazard)}</td>` : ''}<td><code>${esc(p.control)}</code></td>` +
          `<td>${p.kind === 'hil' ? `<a href="#${esc(p.scenario)}">${esc(p.scenario)}</a>` : `<code>${esc(p.scenario)}</code> (process-level)`}</td>` +
          `${i === 0 ? `<td rowspan="${h.proofs.length}">${esc(h.documentedBound)}</td>` : ''}<td>${measured}</td>` +
          `<td class="${cls(p.result)}">${esc(p.result)}</td><td class="${cls(p.killedByMutation)}">${esc(p.killedByMutation)}</td></tr>`,
      );
    });
  }
  const before = `<p>Signed by <code>${esc(doc.signature.kid)}</code> at ${esc(doc.signature.signedAt)}; document hash <code>${esc(doc.hash)}</code>.
Check it with <code>hearth verify report.json --keys KEYS</code> (the key record <code>hearth keygen</code> printed): any edit of report.json breaks the signature. This page is rendered from it.</p>
<h2>Hazards, controls, scenarios: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped; ${summary.killed} of ${summary.mutants} mutants killed</h2>
<p>Each control was switched off in turn on the simulated rig (never with real heaters) and its scenarios run again: "killed" means the scenario then failed, so it does test the control. Process-level scenarios (spawned hubs, the heat guard) run in the project's test suite (<code>npm run hil:mutants</code>), not here.</p>
<table id="hazards"><tr><th>hazard</th><th>control</th><th>scenario</th><th>documented bound</th><th>measured here</th><th>result</th><th>killed by mutation</th></tr>
${rows.join('\n')}
</table>`;
  return {
    title: 'Hearth safety report',
    facts: [
      ['Hearth', `${hearth.version}, commit ${hearth.commit}`],
      ['rig', rig.file ? `${rig.kind}: ${rig.file} (sha256 ${rig.sha256})` : `${rig.kind} (each scenario's options)`],
      ['limits in force', limits ? `${limits.id ?? '?'} ${limits.version ?? ''}` : 'none read'],
      ['machine', `${machine.hostname}, ${machine.cpus}, Node ${machine.node}`],
      ['date', String(doc.date)],
      [
        'load average (1, 5, 15 min)',
        `${machine.loadAverageAtStart.join(', ')} at the start; ${machine.loadAverageAtEnd.join(', ')} at the end`,
      ],
    ],
    before,
  };
}
