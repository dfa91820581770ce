// Live temperature readings from the hub's event feed, one message per sensor per interval.

module.exports = (RED) => {
  function SvcSensorNode(config) {
    RED.nodes.createNode(this, config);
    const hearth = RED.nodes.getNode(config.hearth);
    if (!hearth) {
      this.status({ fill: 'red', shape: 'ring', text: 'no Hearth configured' });
      return;
    }
    const sensor = (config.sensor || '').trim();
    const intervalMs = Math.max(0, Number(config.interval || 1) * 1000);
    const last = new Map();
    this.status({ fill: 'yellow', shape: 'ring', text: 'connecting' });
    const feed = hearth.follow(
      'svc.telemetry',
      (ev) => {
        const d = ev.data || {};
        const id = d.sensor || ev.subject;
        if (sensor && id !== sensor) return;
        const now = Date.now();
        if (intervalMs > 0 && now - (last.get(id) || 0) < intervalMs) return;
        last.set(id, now);
        const reading = Array.isArray(d.readings) && d.readings[0] ? d.readings[0] : {};
        const tempC = typeof reading.value === 'number' ? reading.value : null;
        this.status(
          tempC === null
            ? { fill: 'red', shape: 'ring', text: `${id}: ${d.fault || 'no reading'}` }
            : { fill: 'green', shape: 'dot', text: `${id}: ${tempC.toFixed(1)} °C` },
        );
        this.send({ topic: id, payload: tempC, fault: d.fault, sensor: reading.sensor, time: ev.time });
      },
      (state, detail) => {
        if (state !== 'connected') this.status({ fill: 'yellow', shape: 'ring', text: detail || state });
      },
    );
    this.on('close', () => feed.close());
  }
  RED.nodes.registerType('svc-sensor', SvcSensorNode);
};
