// Read an execution's status (GET /v1/executions/{id}), or the safety state (GET /svc/v1/safety) without an id.

module.exports = (RED) => {
  function SvcStatusNode(config) {
    RED.nodes.createNode(this, config);
    const hearth = RED.nodes.getNode(config.hearth);
    this.on('input', async (msg, send, done) => {
      if (!hearth) return done(new Error('no Hearth connection configured'));
      const id = msg.executionId || (typeof msg.payload === 'string' ? msg.payload : '') || config.executionId;
      const path = id ? `/v1/executions/${encodeURIComponent(id)}` : '/svc/v1/safety';
      try {
        const r = await hearth.request('GET', path);
        msg.statusCode = r.status;
        msg.payload = r.body;
        if (r.status >= 400) {
          this.status({ fill: 'red', shape: 'ring', text: hearth.describe(r).slice(0, 40) });
          send(msg);
          return done(new Error(hearth.describe(r)));
        }
        this.status(
          id
            ? { fill: 'green', shape: 'dot', text: r.body.state }
            : { fill: r.body.latched ? 'red' : 'green', shape: 'dot', text: r.body.latched ? 'safety stop' : 'safe' },
        );
        send(msg);
        done();
      } catch (err) {
        this.status({ fill: 'red', shape: 'ring', text: 'unreachable' });
        done(err);
      }
    });
  }
  RED.nodes.registerType('svc-status', SvcStatusNode);
};
