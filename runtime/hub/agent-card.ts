/**
 * The hub's agent card at `/.well-known/agent-card.json` (spec §4.8): name, description, version, `url`
 * `{hub_url}/a2a`, streaming and push notifications, the default modes, the six skills, the `paired` HTTP
 * bearer scheme that `security` requires, and the A2A 1.0 `supportedInterfaces`. The spec's authentication
 * table puts the hub agent card behind a paired token, so it answers 401 without one.
 */
import type { AgentInterface, AgentSkill } from '@a2a-js/sdk';
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../platform/http/auth.js';
import { SVC_VERSION } from './types.js';

type Skill = Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags'>;
type Interface = Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion'>;

const SKILLS: Skill[] = [
  {
    id: 'plan_meal',
    name: 'Plan a meal',
    description: 'Pick recipes this kitchen can cook, dry-run them and create a session for a serving time.',
    tags: ['planning', 'sessions'],
  },
  {
    id: 'cook_recipe',
    name: 'Cook a recipe',
    description: 'Drive a confirmed session on the kitchen’s devices; a person confirms and stays present for heat.',
    tags: ['cooking', 'executor'],
  },
  {
    id: 'restock_kitchen',
    name: 'Restock the kitchen',
    description: 'Read the inventory and create order intents that a person approves.',
    tags: ['inventory', 'orders'],
  },
  {
    id: 'advise',
    name: 'Advise',
    description: 'Answer cooking questions with the kitchen’s context (what can I cook, fix a mistake, store food).',
    tags: ['advice'],
  },
  { id: 'team_plan', name: 'Team plan', description: 'Split a session’s tasks between people and devices.', tags: ['planning', 'tasks'] },
  {
    id: 'relief_allocate',
    name: 'Relief allocation',
    description: 'Match relief needs with pledges on a coordinator hub.',
    tags: ['relief'],
  },
];

export function agentCard(hubUrl: string) {
  const base = hubUrl.replace(/\/+$/, '');
  const supportedInterfaces: Interface[] = [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
  return {
    name: 'Hearth kitchen hub',
    description: 'One kitchen: sessions, tasks, inventory, orders, safety and the device executor, for people and paired agents.',
    version: SVC_VERSION,
    url: `${base}/a2a`,
    supportedInterfaces,
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: SKILLS,
    securitySchemes: {
      paired: { type: 'http', scheme: 'bearer', description: 'A token paired with this hub (POST /svc/v1/pair, approved by a person).' },
    },
    security: [{ paired: [] }],
    additionalInterfaces: [{ url: `${base}/svc/v1/mcp`, transport: 'mcp-streamable-http' }],
  };
}

export function registerAgentCard(http: FastifyInstance, hubUrl: () => string): void {
  http.get('/.well-known/agent-card.json', async (req, reply) => {
    requirePrincipal(req);
    return reply.header('cache-control', 'no-cache').send(agentCard(hubUrl()));
  });
}
