/**
 * Answering a task (`POST /svc/v1/tasks/{id}/respond`). A confirmation task is a person's to answer: `yes`
 * confirms the session (with the rules the task lists, or the ones given), `no` declines it. A cooking check
 * answered `yes` resumes the execution (the executor checks again that a person is at the appliance); `no`
 * aborts the session. A team step answered `yes` is done, `no` is declined (rejected). An answered or closed task
 * cannot be answered again.
 */
import type { Principal } from '../../../platform/http/auth.js';
import { ProblemError } from '../../../platform/http/problems.js';
import { FINAL_TASK_STATES, type Task } from '../types.js';
import { actorOf, type SessionService } from './sessions.js';

export interface TaskAnswer {
  answer: 'yes' | 'no';
  acknowledgedRules?: string[];
  note?: string;
}

export function respondToTask(svc: SessionService, taskId: string, body: TaskAnswer, by: Principal): Task {
  const task = svc.tasks.get(taskId);
  if (!task) throw new ProblemError('not-found', `no task ${taskId} on this hub`);
  if (FINAL_TASK_STATES.includes(task.state))
    throw new ProblemError('conflict', `task ${taskId} is ${task.state}; it takes no more answers`);
  const answer = { value: body.answer, by: actorOf(by), at: svc.iso() };
  if (task.kind === 'confirm_session') {
    if (by.kind !== 'human')
      throw new ProblemError('not-human-approver', 'only a person’s token can answer a confirmation; an agent can only prepare it');
    const session = svc.get(task.sessionId);
    if (body.answer === 'no') {
      svc.decline(session);
      task.answer = answer;
      return svc.saveTask(task, 'rejected');
    }
    svc.confirm(task.sessionId, body.acknowledgedRules ?? task.rules ?? [], by);
    return svc.tasks.get(taskId) ?? task;
  }
  if (task.kind === 'team_step') {
    // A planned step: `yes` reports it done, `no` that its actor will not do it (a new team plan reassigns it).
    task.answer = answer;
    return svc.saveTask(task, body.answer === 'yes' ? 'completed' : 'rejected');
  }
  if (body.answer === 'no') {
    svc.abort(task.sessionId, 'a person answered no to a cooking check', by);
    const closed = svc.tasks.get(taskId) ?? task;
    closed.answer = answer;
    return svc.saveTask(closed, 'canceled');
  }
  svc.answerCheck(task);
  const after = svc.tasks.get(taskId) ?? task;
  after.answer = answer;
  return svc.saveTask(after, 'completed');
}
