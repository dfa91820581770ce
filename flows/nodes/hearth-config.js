// The connection to a Hearth device or hub: its URL and a bearer token (stored as a Node-RED credential).

const { request, describe, follow } = require('./lib/client.js');

module.exports = (RED) => {
  function HearthConfigNode(config) {
    RED.nodes.createNode(this, config);
    this.url = config.url || 'http://127.0.0.1:8080';
    const conn = () => ({ url: this.url, token: this.credentials?.token });
    this.request = (method, path, body, headers) => request(conn(), method, path, body, headers);
    this.describe = describe;
    this.follow = (types, onEvent, onState) => follow(conn(), types, onEvent, onState);
    this.hasToken = () => Boolean(this.credentials?.token);
  }
  RED.nodes.registerType('hearth-config', HearthConfigNode, { credentials: { token: { type: 'password' } } });
};
