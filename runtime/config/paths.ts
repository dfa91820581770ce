// Where the package's own files live: platform/paths.ts, so that services/ need not import runtime/.
export { packageRoot } from '../../platform/paths.js';
