/**
 * The hub's agent card at `/.well-known/agent-card.json` (spec §4.8), in the A2A 1.0 shape only: the SDK's
 * `AgentCard` type, served as `AgentCard.toJSON(card)`. Its one interface is JSON-RPC at `{hub_url}/a2a`
 * (A2A 1.0 carries the spec's `url` there), with streaming and push notifications, the default modes, the
 * skills registered in runtime/a2a/skills.ts and the `paired` HTTP bearer scheme its security
 * requirement names. URLs are absolute, built from the hub's public URL (`publicUrl`). The spec's
 * authentication table puts the hub agent card behind a paired token, so it answers 401 without one.
 *
 * The SDK (with jose) loads on the first card request, not at start-up.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../platform/http/auth.js';
import { type A2aSkill, a2aSkills } from '../a2a/skills.js';
import { SVC_VERSION } from './types.js';

/** The path of the hub's A2A endpoint. */
export const A2A_PATH = '/a2a';

/** A registered skill (runtime/a2a/skills.ts) as the card lists it. */
const cardSkill = (s: A2aSkill): AgentSkill => ({
  id: s.id,
  name: s.name,
  description: s.description,
  tags: [...s.tags],
  examples: [...s.examples],
  inputModes: ['application/json'],
  outputModes: ['application/json', 'text/plain'],
  securityRequirements: [],
});

/** The hub's card for a hub reachable at `hubUrl` (absolute, no trailing slash needed). */
export function hubAgentCard(hubUrl: string): AgentCard {
  const base = hubUrl.replace(/\/+$/, '');
  return {
    name: 'Hearth kitchen hub',
    description:
      'One kitchen: sessions, tasks, inventory, orders, safety and the device executor, for people and paired agents. Send a data part {"skill", "input"}; free text is not acted on.',
    supportedInterfaces: [{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: { organization: 'Hearth', url: base },
    version: SVC_VERSION,
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      paired: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'bearer',
            bearerFormat: '',
            description: 'A token paired with this hub (POST /svc/v1/pair, approved by a person).',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { paired: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: a2aSkills().map(cardSkill),
    signatures: [],
    iconUrl: undefined,
  };
}

/** The card's JSON form (A2A 1.0), as served. */
export async function hubAgentCardJson(hubUrl: string): Promise<unknown> {
  const { AgentCard } = await import('@a2a-js/sdk');
  return AgentCard.toJSON(hubAgentCard(hubUrl));
}

export function registerAgentCard(http: FastifyInstance, hubUrl: () => string): void {
  http.get('/.well-known/agent-card.json', async (req, reply) => {
    requirePrincipal(req);
    return reply.header('cache-control', 'no-cache').send(await hubAgentCardJson(hubUrl()));
  });
}
