/**
 * Recalls against what is cooking now. After every sync that verified an index (the sync service's `applied`
 * event, emitted once the recalls are committed), the executor's live execution is checked against the
 * recalls table:
 *
 * - `block_and_stop_running` naming its revision stops it at once, through the executor's normal stop (heat
 *   released through the supervisor before the call returns), logged as `recalled`, with the state events
 *   carrying `recall:<recall id>` as the reason. This is the safety control `recall-stops-running`.
 * - `block` refuses new starts (start checks) but lets a running execution finish: the recall is noted in its
 *   log (`x-hearth-events`, kind `recalled`) once.
 */
import { controlActive } from '../../safety/controls.js';
import type { EventBus } from '../events/bus.js';
import type { Executor } from '../executor/executor.js';

export interface RecallEnforcement {
  /** The execution stopped and the recall that stopped it. */
  stopped?: { executionId: string; recall: string };
  /** A `block` recall noted on the running execution. */
  noted?: { executionId: string; recall: string };
}

type ExecutorView = Pick<Executor, 'activeRevision' | 'stopForRecall' | 'noteRecall' | 'recalls'>;

/** Check the live execution against the recalls now held; `noted` remembers what was already noted. */
export function enforceRecalls(executor: ExecutorView, noted: Set<string> = new Set()): RecallEnforcement {
  const rev = executor.activeRevision();
  if (!rev) return {};
  const stop = executor.recalls.stopping(rev.recipeId, rev.hash);
  if (stop && controlActive('recall-stops-running')) {
    executor.stopForRecall(rev.executionId, stop);
    return { stopped: { executionId: rev.executionId, recall: stop.id } };
  }
  const block = executor.recalls.blocking(rev.recipeId, rev.hash);
  if (!block) return {};
  const key = `${rev.executionId} ${block.id}`;
  if (noted.has(key)) return {};
  noted.add(key);
  executor.noteRecall(rev.executionId, block);
  return { noted: { executionId: rev.executionId, recall: block.id } };
}

/** Enforce recalls after every sync that verified an index; returns the unsubscribe function. */
export function stopRecalledOnSync(
  bus: EventBus,
  executor: ExecutorView,
  log?: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void },
): () => void {
  const noted = new Set<string>();
  return bus.on('sync', (e) => {
    if (e.kind !== 'applied') return;
    const r = enforceRecalls(executor, noted);
    if (r.stopped) log?.warn(r.stopped, `recall ${r.stopped.recall}: the running execution ${r.stopped.executionId} was stopped`);
    if (r.noted) log?.info(r.noted, `recall ${r.noted.recall} (block): the running execution may finish; new starts are refused`);
  });
}
