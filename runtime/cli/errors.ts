// The CLI's one-line error lives in platform/ so that services/ can throw it without importing runtime/.
export { CliError } from '../../platform/cli-error.js';
