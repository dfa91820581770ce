// Emergency stop: cut all heat now (POST /svc/v1/safety/estop). Any token may; without a token the dashboard's
// local e-stop is used, which Hearth accepts only from the local network.

module.exports = (RED) => {
  function SvcEstopNode(config) {
    RED.nodes.createNode(this, config);
    const hearth = RED.nodes.getNode(config.hearth);
    this.on('input', async (msg, send, done) => {
      if (!hearth) return done(new Error('no Hearth connection configured'));
      const reason = String(
        msg.payload?.reason || msg.reason || config.reason || `e-stop from a Node-RED flow (${config.name || this.id})`,
      ).slice(0, 300);
      const path = hearth.hasToken() ? '/svc/v1/safety/estop' : '/dashboard/v1/estop';
      try {
        const r = await hearth.request('POST', path, { reason });
        msg.statusCode = r.status;
        msg.payload = r.body;
        if (r.status >= 400) {
          this.status({ fill: 'red', shape: 'ring', text: hearth.describe(r).slice(0, 40) });
          send(msg);
          return done(new Error(`the e-stop was not accepted: ${hearth.describe(r)} — use the physical button`));
        }
        this.status({ fill: 'red', shape: 'dot', text: 'heat cut' });
        send(msg);
        done();
      } catch (err) {
        this.status({ fill: 'red', shape: 'ring', text: 'unreachable' });
        done(err);
      }
    });
  }
  RED.nodes.registerType('svc-estop', SvcEstopNode);
};
