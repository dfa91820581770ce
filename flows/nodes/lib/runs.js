// Flows that Hearth can run on request (the hub's `run_flow` MCP tool): an "svc flow in" node registers under
// its flow id; a run injects {payload: inputs} there and waits for the "svc flow out" node that answers it.
// One registry per process: the embedded Node-RED and Hearth load this same module.

const { randomUUID } = require('node:crypto');

const entries = new Map();
const pending = new Map();

function register(flowId, node) {
  entries.set(flowId, node);
}

function unregister(flowId, node) {
  if (entries.get(flowId) === node) entries.delete(flowId);
}

function list() {
  return [...entries.keys()].sort();
}

class FlowRunError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Inject `inputs` into the flow `flowId`; resolves with the payload its svc-flow-out sends back. */
function run(flowId, inputs, opts = {}) {
  const node = entries.get(flowId);
  if (!node)
    return Promise.reject(
      new FlowRunError('unknown_flow', `no deployed flow has an "svc flow in" node with the id ${JSON.stringify(flowId)}`),
    );
  const runId = randomUUID();
  const timeoutMs = opts.timeoutMs || 30000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(runId);
      reject(
        new FlowRunError('timeout', `the flow ${flowId} did not answer within ${timeoutMs} ms (does it end in an "svc flow out" node?)`),
      );
    }, timeoutMs);
    pending.set(runId, { resolve, reject, timer });
    node.inject({ topic: flowId, payload: inputs, _hearthRun: runId, requestedBy: opts.requestedBy });
  });
}

/** Called by svc-flow-out. Returns false when no run waits for this message. */
function complete(runId, payload) {
  const p = pending.get(runId);
  if (!p) return false;
  pending.delete(runId);
  clearTimeout(p.timer);
  p.resolve(payload);
  return true;
}

module.exports = { register, unregister, list, run, complete, FlowRunError };
