// "svc flow in" / "svc flow out": a flow Hearth can run on request (the hub's `run_flow` MCP tool). The in node
// registers under its flow id and receives {payload: inputs}; the out node sends the flow's answer back.

const runs = require('./lib/runs.js');

module.exports = (RED) => {
  function SvcFlowInNode(config) {
    RED.nodes.createNode(this, config);
    const flowId = (config.flowId || '').trim();
    if (!flowId) {
      this.status({ fill: 'red', shape: 'ring', text: 'flow id needed' });
      return;
    }
    this.inject = (msg) => this.receive(msg);
    this.on('input', (msg, send, done) => {
      send(msg);
      done();
    });
    runs.register(flowId, this);
    this.status({ fill: 'green', shape: 'ring', text: flowId });
    this.on('close', () => runs.unregister(flowId, this));
  }
  RED.nodes.registerType('svc-flow-in', SvcFlowInNode);

  function SvcFlowOutNode(config) {
    RED.nodes.createNode(this, config);
    this.on('input', (msg, _send, done) => {
      if (!msg._hearthRun || !runs.complete(msg._hearthRun, msg.payload))
        this.warn('no run is waiting for this message (was it started by run_flow?)');
      done();
    });
  }
  RED.nodes.registerType('svc-flow-out', SvcFlowOutNode);
};
