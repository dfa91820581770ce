// Preloaded (`--import`) into a process to write every module it loads, in load order, to the file named by
// HEARTH_MODULE_LOG as `PID URL` lines (ESM through a loader hook, CommonJS through Module._load as
// `PID require:PATH`). For `npm run bench -- start` only; a child process that inherits it writes its own pid.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const out = process.env.HEARTH_MODULE_LOG;
if (out) {
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(out)}, ${JSON.stringify(String(process.pid))} + ' ' + url + '\\n');
  return next(url, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
  const Module = createRequire(import.meta.url)('node:module');
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    try {
      appendFileSync(out, `${process.pid} require:${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {}
    // biome-ignore lint/complexity/noArguments: forwards whatever the loader passed
    return load.apply(this, arguments);
  };
}
