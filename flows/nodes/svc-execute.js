// Ask Hearth to cook a recipe (POST /v1/executions). The answer, accepted or refused, is the output.

const { randomUUID } = require('node:crypto');

module.exports = (RED) => {
  function SvcExecuteNode(config) {
    RED.nodes.createNode(this, config);
    const hearth = RED.nodes.getNode(config.hearth);
    this.on('input', async (msg, send, done) => {
      if (!hearth) return done(new Error('no Hearth connection configured'));
      const p = msg.payload && typeof msg.payload === 'object' ? msg.payload : {};
      const recipe = p.recipe || (typeof msg.payload === 'string' && msg.payload) || config.recipe;
      const recipeHash = p.recipeHash || msg.recipeHash || config.recipeHash;
      if (!recipe || !recipeHash) {
        this.status({ fill: 'red', shape: 'ring', text: 'recipe and hash needed' });
        return done(new Error('svc-execute needs a recipe id and its recipeHash (node settings or msg.payload {recipe, recipeHash})'));
      }
      const key = `node-red-${randomUUID()}`;
      const body = {
        core: '0.2.0',
        kind: 'ExecuteRequest',
        id: `req-${key}`,
        recipe,
        recipeHash,
        requestedBy: `node-red:${config.name || this.id}`,
        idempotencyKey: key,
      };
      this.status({ fill: 'blue', shape: 'dot', text: 'asking' });
      try {
        const r = await hearth.request('POST', '/v1/executions', body, { 'idempotency-key': key });
        msg.statusCode = r.status;
        msg.payload = r.body;
        if (r.status >= 400) {
          this.status({ fill: 'red', shape: 'ring', text: hearth.describe(r).slice(0, 40) });
          send(msg);
          return done(new Error(`Hearth refused the request: ${hearth.describe(r)}`));
        }
        msg.executionId = r.body.id;
        const refused = r.body.state === 'refused';
        this.status(
          refused
            ? { fill: 'red', shape: 'ring', text: `refused: ${r.body.refusal?.reason || 'see payload'}` }
            : { fill: 'green', shape: 'dot', text: r.body.state },
        );
        send(msg);
        done();
      } catch (err) {
        this.status({ fill: 'red', shape: 'ring', text: 'unreachable' });
        done(err);
      }
    });
  }
  RED.nodes.registerType('svc-execute', SvcExecuteNode);
};
