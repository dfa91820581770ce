/**
 * Which control cut first. Two controls outside the supervisor's loop cut heat by themselves when that loop stops
 * running: the heat guard process (its lease lapsed: runtime/guard) and the loop watchdog thread (the heartbeat
 * stalled: watchdog.ts). Both report once hearth runs again, in whatever order its event loop happens to read them
 * (a timer for the watchdog, a socket for the guard), and the first trip latched is the one a person reads. So a
 * reported cut is held for one turn of the loop, the other control is asked whether it cut too, and the trip then
 * names the control that cut first and when, with the others after it (docs/safety.md, "Who cut first").
 */

export interface ReportedCut {
  /** The control, as a person reads it: `heat guard`, `loop watchdog`. */
  by: string;
  /** When it cut (epoch ms, real time). */
  at: number;
  /** What it did, as a sentence's start: `the heat guard cut pot`. */
  act: string;
  /** Why: `no lease renewal for 612 ms`. */
  why: string;
  subject: string;
  hint: string;
}

export interface FirstCutTrip {
  subject: string;
  message: string;
  hint: string;
  /** The control that cut first. */
  source: string;
}

/** One line naming every cut, with its time, the first one first. */
export function describeCuts(cuts: readonly ReportedCut[]): string {
  const at = (c: ReportedCut) => new Date(c.at).toISOString();
  return [...cuts]
    .sort((a, b) => a.at - b.at)
    .map((c, i) => `${c.act} at ${at(c)}${i === 0 ? '' : ', after it'}: ${c.why}`)
    .join('; ');
}

/**
 * Collects cuts reported in one turn of the event loop and latches one trip for them, naming the earliest.
 * `poll` asks the controls that report on a timer (the watchdog) to report now, before the trip is made.
 */
export class FirstCut {
  private pending: ReportedCut[] = [];
  private scheduled = false;

  constructor(
    private readonly latch: (trip: FirstCutTrip) => void,
    private readonly poll: () => void = () => {},
  ) {}

  /** A cut was reported and its trip is not latched yet: no heat may be granted until it is. */
  get holding(): boolean {
    return this.scheduled;
  }

  report(cut: ReportedCut): void {
    this.pending.push(cut);
    if (this.scheduled) return;
    this.scheduled = true;
    // After the poll phase: a guard report already waiting on its socket is read before the trip is made.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.poll();
    this.scheduled = false;
    const cuts = this.pending.splice(0).sort((a, b) => a.at - b.at);
    const first = cuts[0];
    if (!first) return;
    this.latch({ subject: first.subject, message: describeCuts(cuts), hint: first.hint, source: first.by });
  }
}
