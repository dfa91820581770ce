// Safety events as they happen (trips, e-stops, resets, refused attempts), from the hub's event feed.

module.exports = (RED) => {
  function SvcSafetyInNode(config) {
    RED.nodes.createNode(this, config);
    const hearth = RED.nodes.getNode(config.hearth);
    if (!hearth) {
      this.status({ fill: 'red', shape: 'ring', text: 'no Hearth configured' });
      return;
    }
    this.status({ fill: 'yellow', shape: 'ring', text: 'connecting' });
    const feed = hearth.follow(
      'svc.safety',
      (ev) => {
        const latched = ev.type !== 'svc.safety.cleared' && ev.type !== 'svc.safety.reset';
        this.status({ fill: latched ? 'red' : 'green', shape: 'dot', text: ev.type.replace('svc.safety.', '') });
        this.send({ topic: ev.type, payload: ev.data, event: ev });
      },
      (state, detail) =>
        this.status(
          state === 'connected'
            ? { fill: 'green', shape: 'ring', text: 'listening' }
            : { fill: 'yellow', shape: 'ring', text: detail || state },
        ),
    );
    this.on('close', () => feed.close());
  }
  RED.nodes.registerType('svc-safety-in', SvcSafetyInNode);
};
