/** restock_kitchen: the inventory (with what expires soon) and, when lines are given, an order intent a person approves. */
import type { Json } from '../../services/index/entry.js';
import type { OrderLine } from '../hub/kitchen/index.js';
import { orderSchema } from '../hub/kitchen/index.js';
import { defineSkill, forbidden, toolScopes } from './define.js';

interface RestockInput {
  lines?: OrderLine[];
  note?: string;
}

export const restockKitchen = defineSkill<RestockInput>({
  id: 'restock_kitchen',
  name: 'Restock the kitchen',
  description: 'Read the inventory and create order intents that a person approves. Needs the scope read, and order:create for an order.',
  tags: ['inventory', 'orders'],
  examples: ['{"skill":"restock_kitchen","input":{"lines":[{"item":"onions","quantity":2,"unit":"kg"}]}}'],
  usage: '{lines?: [{item, quantity, unit}], note?}',
  scopes: toolScopes('get_inventory'),
  input: {
    type: 'object',
    additionalProperties: false,
    properties: { lines: orderSchema.properties.lines, note: orderSchema.properties.note },
  },
  perform(d, a, p) {
    const inventory = d.kitchen.inventory();
    if (!a.lines) {
      return {
        kind: 'done',
        summary: `${inventory.items.length} inventory items, ${inventory.expiringSoon.length} expiring soon. Send lines to create an order intent.`,
        data: { inventory: inventory as unknown as Json },
      };
    }
    const need = toolScopes('create_order_intent');
    const missing = need.filter((s) => !p.scopes.includes(s));
    if (missing.length > 0) return forbidden('restock_kitchen with lines', missing);
    const order = d.kitchen.createOrder(a.lines, a.note, p);
    return {
      kind: 'done',
      summary: `Order intent ${order.id} created (${order.state}); only a person approves it.`,
      data: { inventory: inventory as unknown as Json, orderIntent: order as unknown as Json },
    };
  },
});
