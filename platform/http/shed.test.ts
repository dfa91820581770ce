/** Which memory limit the hub sheds by: cgroup v1 and v2 (read from their files), none, or the environment. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { alwaysServed, cgroupReading, memoryReading } from './shed.js';

t.test('cgroup v1: the memory controller path, its limit and total_rss', async (t) => {
  const root = t.testdir();
  const self = join(root, 'self-cgroup');
  writeFileSync(self, '12:pids:/x\n9:memory:/hearth.service\n1:name=systemd:/hearth.service\n');
  mkdirSync(join(root, 'memory/hearth.service'), { recursive: true });
  writeFileSync(join(root, 'memory/hearth.service/memory.limit_in_bytes'), `${192 * 1048576}\n`);
  writeFileSync(join(root, 'memory/hearth.service/memory.stat'), 'cache 100\nrss 5\ntotal_cache 100\ntotal_rss 123456\n');
  const r = cgroupReading(root, self);
  t.equal(r?.limit, 192 * 1048576);
  t.equal(r?.used(), 123456);
  writeFileSync(join(root, 'memory/hearth.service/memory.limit_in_bytes'), '9223372036854771712\n');
  t.equal(cgroupReading(root, self), undefined, 'v1 without a limit: nothing to shed by');
});

t.test('cgroup v2: memory.max and anon', async (t) => {
  const root = t.testdir();
  const self = join(root, 'self-cgroup');
  writeFileSync(self, '0::/system.slice/hearth.service\n');
  writeFileSync(join(root, 'cgroup.controllers'), 'cpu memory pids\n');
  mkdirSync(join(root, 'system.slice/hearth.service'), { recursive: true });
  writeFileSync(join(root, 'system.slice/hearth.service/memory.max'), `${192 * 1048576}\n`);
  writeFileSync(join(root, 'system.slice/hearth.service/memory.stat'), 'anon 7777\nfile 99999\n');
  const r = cgroupReading(root, self);
  t.equal(r?.limit, 192 * 1048576);
  t.equal(r?.used(), 7777);
  writeFileSync(join(root, 'system.slice/hearth.service/memory.max'), 'max\n');
  t.equal(cgroupReading(root, self), undefined, 'v2 without a limit');
});

t.test(
  'a limit on a parent cgroup (a slice, a container) bounds the process too; a path not under the mount starts at its root',
  async (t) => {
    const root = t.testdir();
    const self = join(root, 'self-cgroup');
    writeFileSync(self, '9:memory:/hearth.slice/hearth.service\n');
    mkdirSync(join(root, 'memory/hearth.slice/hearth.service'), { recursive: true });
    writeFileSync(join(root, 'memory/memory.limit_in_bytes'), '9223372036854771712\n');
    writeFileSync(join(root, 'memory/hearth.slice/memory.limit_in_bytes'), `${256 * 1048576}\n`);
    writeFileSync(join(root, 'memory/hearth.slice/memory.stat'), 'total_rss 4242\n');
    writeFileSync(join(root, 'memory/hearth.slice/hearth.service/memory.limit_in_bytes'), '9223372036854771712\n');
    const r = cgroupReading(root, self);
    t.equal(r?.limit, 256 * 1048576, "the slice's limit");
    t.equal(r?.used(), 4242, "the slice's total_rss (its descendants included)");
    writeFileSync(self, '9:memory:/docker/abc\n');
    writeFileSync(join(root, 'memory/memory.limit_in_bytes'), `${512 * 1048576}\n`);
    writeFileSync(join(root, 'memory/memory.stat'), 'total_rss 99\n');
    t.equal(cgroupReading(root, self)?.limit, 512 * 1048576, 'a container without a cgroup namespace: its root');
    const v2 = t.testdir();
    const self2 = join(v2, 'self-cgroup');
    writeFileSync(self2, '0::/system.slice/hearth.service\n');
    writeFileSync(join(v2, 'cgroup.controllers'), 'memory\n');
    mkdirSync(join(v2, 'system.slice/hearth.service'), { recursive: true });
    writeFileSync(join(v2, 'system.slice/memory.max'), `${300 * 1048576}\n`);
    writeFileSync(join(v2, 'system.slice/memory.stat'), 'anon 5\n');
    writeFileSync(join(v2, 'system.slice/hearth.service/memory.max'), 'max\n');
    t.equal(cgroupReading(v2, self2)?.limit, 300 * 1048576, 'v2: the parent with memory.max');
    t.equal(cgroupReading(v2, self2)?.used(), 5);
  },
);

t.test('limits on the unit and on its slice: the hub sheds by whichever is fuller', async (t) => {
  const root = t.testdir();
  const self = join(root, 'self-cgroup');
  writeFileSync(self, '9:memory:/hearth.slice/hearth.service\n');
  const unit = join(root, 'memory/hearth.slice/hearth.service');
  const slice = join(root, 'memory/hearth.slice');
  mkdirSync(unit, { recursive: true });
  const MB = 1048576;
  writeFileSync(join(unit, 'memory.limit_in_bytes'), `${192 * MB}\n`);
  writeFileSync(join(slice, 'memory.limit_in_bytes'), `${256 * MB}\n`);
  // The slice holds other services too: it is nearly full while the hub's own cgroup is not.
  writeFileSync(join(unit, 'memory.stat'), `total_rss ${50 * MB}\n`);
  writeFileSync(join(slice, 'memory.stat'), `total_rss ${250 * MB}\n`);
  const r = cgroupReading(root, self);
  t.equal(r?.used(), 250 * MB, "the slice's usage: it is the fuller");
  t.equal(r?.limit, 256 * MB, "with the slice's limit");
  t.ok((r?.used() ?? 0) >= (r?.limit ?? Infinity) * 0.85, 'past the shed threshold');
  writeFileSync(join(unit, 'memory.stat'), `total_rss ${190 * MB}\n`);
  writeFileSync(join(slice, 'memory.stat'), `total_rss ${200 * MB}\n`);
  t.equal(r?.used(), 190 * MB, "then the unit's: now it is the fuller");
  t.equal(r?.limit, 192 * MB);
  t.match(r?.source, /fullest of .*hearth\.service.*hearth\.slice/, 'the log names both');
});

t.test('HEARTH_MEMORY_LIMIT_MB, else the cgroup only as a service; stops are always served', async (t) => {
  t.equal(memoryReading({}), undefined, 'outside a service, no cgroup is read');
  const r = memoryReading({ HEARTH_MEMORY_LIMIT_MB: '160', INVOCATION_ID: 'x' });
  t.equal(r?.limit, 160 * 1048576, 'the variable wins');
  t.ok((r?.used() ?? 0) > 0, 'the process RSS');
  t.equal(memoryReading({ HEARTH_MEMORY_LIMIT_MB: 'lots' }), undefined);
  t.same(memoryReading({ INVOCATION_ID: 'x' })?.limit, cgroupReading()?.limit, 'as a service: its cgroup');
  t.ok(alwaysServed('POST', '/svc/v1/safety/estop'));
  t.ok(alwaysServed('POST', '/dashboard/v1/estop?x=1'));
  t.ok(alwaysServed('POST', '/v1/executions/ex-1/stop'));
  t.notOk(alwaysServed('GET', '/v1/executions/ex-1/stop'));
  t.notOk(alwaysServed('POST', '/v1/executions'));
  // An agent's e-stop arrives in a body: MCP's emergency_stop, GraphQL's emergencyStop, an A2A cancel; and a
  // session's abort or pause is a stop too.
  for (const path of ['/svc/v1/mcp', '/svc/v1/graphql', '/a2a', '/svc/v1/sessions/s-1/abort', '/svc/v1/sessions/s-1/pause'])
    t.ok(alwaysServed('POST', path), `POST ${path} is served`);
  t.notOk(alwaysServed('GET', '/svc/v1/graphql'));
  t.notOk(alwaysServed('POST', '/svc/v1/sessions'));
});
