/**
 * MCP tools for leases and handoffs: the same services (runtime/hub/coordination/leases.ts, handoffs.ts) as the REST routes,
 * with the same scopes and refusals (`lease-conflict`, `not-human-approver`, `capability-mismatch`).
 */
import type { Json } from '../../services/index/entry.js';
import type { ClaimInput, HandoffService, LeaseService, ProposeInput } from '../hub/coordination/index.js';
import { claimSchema, declineSchema, listHandoffsSchema, listLeasesSchema, proposeSchema, renewSchema } from '../hub/coordination/index.js';
import { type HubTool, scopedTool } from './tool-call.js';

const withId = (schema: { properties: Record<string, unknown> }, what: string) => ({
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, description: `the ${what} id` }, ...schema.properties },
});
const idOnly = (what: string) => withId({ properties: {} }, what);
const json = (v: object): Json => JSON.parse(JSON.stringify(v)) as Json;

export function leaseTools(leases: LeaseService, handoffs: HandoffService): HubTool[] {
  return [
    scopedTool<{ resource?: string; all?: boolean }>(
      'list_leases',
      'The granted leases (who holds which device, burner, zone or vessel, and until when); `all` lists the newest in every state.',
      listLeasesSchema,
      (a) => ({ items: json(leases.list(a)) }),
      true,
    ),
    scopedTool<ClaimInput>(
      'claim_lease',
      'Claim a resource (this hub’s device, one of its parts such as a burner, or a named vessel or zone) for a time. Refused with lease-conflict (naming the holder and when it expires) while someone else holds it.',
      claimSchema,
      (a, p) => json(leases.claim(a, p)),
    ),
    scopedTool<{ id: string; ttlSeconds?: number }>(
      'renew_lease',
      'Extend a lease you hold (or, as a person, any lease).',
      withId(renewSchema, 'lease'),
      (a, p) => json(leases.renew(a.id, a.ttlSeconds, p)),
    ),
    scopedTool<{ id: string }>(
      'release_lease',
      'Release a lease you hold. A session’s lease is released when the session completes or is aborted.',
      idOnly('lease'),
      (a, p) => json(leases.release(a.id, p)),
    ),
    scopedTool<{ state?: string; task?: string }>(
      'list_handoffs',
      'Handoffs, newest first, optionally of one state or one task.',
      listHandoffsSchema,
      (a) => ({
        items: json(handoffs.list({ ...(a.state ? { state: a.state } : {}), ...(a.task ? { taskId: a.task } : {}) })),
      }),
      true,
    ),
    scopedTool<ProposeInput>(
      'propose_handoff',
      'Propose moving a task (or an item such as a hot pan) from one actor to another. The receiving side accepts, then the giving side completes; the task’s assignee changes only then.',
      proposeSchema,
      (a, p) => json(handoffs.propose(a, p)),
    ),
    scopedTool<{ id: string }>(
      'accept_handoff',
      'Accept a proposed handoff for the receiving side. A person’s side needs a person’s token; the hub accepts for its own device.',
      idOnly('handoff'),
      (a, p) => json(handoffs.accept(a.id, p)),
    ),
    scopedTool<{ id: string }>(
      'complete_handoff',
      'Complete an accepted handoff for the giving side: both sides have acknowledged and a task changes assignee.',
      idOnly('handoff'),
      (a, p) => json(handoffs.complete(a.id, p)),
    ),
    scopedTool<{ id: string; reason?: string }>(
      'decline_handoff',
      'Decline an open handoff (the receiving side refuses, or the giving side withdraws).',
      withId(declineSchema, 'handoff'),
      (a, p) => json(handoffs.decline(a.id, p, a.reason)),
    ),
  ];
}
