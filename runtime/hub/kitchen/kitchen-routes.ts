/**
 * Hub REST for the kitchen's records: inventory (GET `read`, PATCH `inventory`), order intents (POST
 * `order:create`, GET `read`, approve: a person's token with `order:create` or `admin`) and the operating mode
 * (GET `read`, PUT `admin`). Notifications: notify-routes.ts.
 */
import type { FastifyInstance } from 'fastify';
import { documentHash } from '../../../core/hash.js';
import type { KeyRecord } from '../../../core/keys.js';
import type { Money } from '../../../core/mandate.js';
import type { Principal } from '../../../platform/http/auth.js';
import { PREFIX } from '../sessions/index.js';
import type { InventoryPatch, KitchenService, OrderExtras, OrderLine } from './kitchen.js';
import { MODES } from './kitchen.js';
import { checkMandate } from './mandates.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100 } } } as const;
const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;

export const inventoryPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    upsert: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'quantity', 'unit'],
        properties: {
          id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
          name: text(100),
          quantity: { type: 'number', minimum: 0, maximum: 1e6 },
          unit: text(20),
          expires: { type: 'string', format: 'date', maxLength: 10 },
        },
      },
    },
    remove: { type: 'array', maxItems: 200, items: text(64) },
  },
} as const;

export const orderSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['lines'],
  properties: {
    lines: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['item', 'quantity', 'unit'],
        properties: {
          item: text(100),
          quantity: { type: 'number', exclusiveMinimum: 0, maximum: 1e6 },
          unit: text(20),
          note: { type: 'string', maxLength: 300 },
        },
      },
    },
    note: { type: 'string', maxLength: 500 },
    provider: text(100),
    estimatedTotal: {
      type: 'object',
      additionalProperties: false,
      required: ['amount', 'currency'],
      properties: { amount: { type: 'number', minimum: 0, maximum: 1e9 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } },
    },
    /** An agent's signed AgentMandate (docs/hub.md#security); verified in full when present. */
    mandate: { type: 'object', maxProperties: 40 },
  },
} as const;

export const modeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: { mode: { enum: [...MODES] } },
} as const;

type Id = { Params: { id: string } };

/** The body of `POST /svc/v1/orders` and the arguments of the MCP tool `create_order_intent`. */
export interface OrderInput {
  lines: OrderLine[];
  note?: string;
  provider?: string;
  estimatedTotal?: Money;
  mandate?: unknown;
}

/**
 * Provider, estimate and mandate of a new order, the mandate verified in full (order_groceries, provider, caps;
 * mandates.ts) whichever door the order came through: a mandate that does not hold throws its problem.
 */
export function orderExtras(k: KitchenService, keys: readonly KeyRecord[], by: Principal, b: OrderInput): OrderExtras {
  const extras: OrderExtras = {};
  if (b.provider !== undefined) extras.provider = b.provider;
  if (b.estimatedTotal !== undefined) extras.estimatedTotal = b.estimatedTotal;
  if (b.mandate !== undefined) {
    // The spend so far is keyed by the hash computed here, never by a `hash` the caller declares.
    let hash = '';
    try {
      hash = documentHash(b.mandate as Record<string, unknown>);
    } catch {
      hash = '';
    }
    extras.mandate = checkMandate(b.mandate, keys, by, {
      scope: 'order_groceries',
      ...(b.provider !== undefined ? { provider: b.provider } : {}),
      ...(b.estimatedTotal !== undefined ? { amount: b.estimatedTotal, spent: k.spentUnder(hash, b.estimatedTotal.currency) } : {}),
    });
  }
  return extras;
}

function who(p: Principal | null): Principal {
  if (!p) throw new Error('unreachable: scope checked');
  return p;
}

export function registerKitchenRoutes(http: FastifyInstance, k: KitchenService, mandateKeys: () => readonly KeyRecord[] = () => []): void {
  http.get(`${PREFIX}/inventory`, { config: { scope: 'read' } }, async () => k.inventory());
  http.patch(
    `${PREFIX}/inventory`,
    { config: { scope: 'inventory', idempotency: 'optional' }, schema: { body: inventoryPatchSchema } },
    async (req) => k.patchInventory(req.body as InventoryPatch),
  );

  http.post(
    `${PREFIX}/orders`,
    { config: { scope: 'order:create', idempotency: 'required' }, schema: { body: orderSchema } },
    async (req, reply) => {
      const b = req.body as OrderInput;
      const by = who(req.principal);
      const extras = orderExtras(k, mandateKeys(), by, b);
      const order = k.createOrder(b.lines, b.note, by, extras);
      return reply.code(201).header('location', `${PREFIX}/orders/${order.id}`).send(order);
    },
  );
  http.get(`${PREFIX}/orders`, { config: { scope: 'read' } }, async () => ({ items: k.orders() }));
  http.get<Id>(`${PREFIX}/orders/:id`, { config: { scope: 'read' }, schema: { params: idParams } }, async (req) => k.order(req.params.id));
  http.post<Id>(
    `${PREFIX}/orders/:id/approve`,
    { config: { scope: ['order:create', 'admin'], idempotency: 'required' }, schema: { params: idParams } },
    async (req) => k.approveOrder(req.params.id, who(req.principal)),
  );

  http.get(`${PREFIX}/mode`, { config: { scope: 'read' } }, async () => k.mode());
  http.put(`${PREFIX}/mode`, { config: { scope: 'admin', idempotency: 'optional' }, schema: { body: modeSchema } }, async (req) =>
    k.setMode((req.body as { mode: string }).mode),
  );
}
