/** All 28 operations of the recipe API, in one table. */
import type { Operation } from './route-types.js';
import { FIND_OPERATIONS } from './routes-find.js';
import { LIST_OPERATIONS } from './routes-lists.js';
import { ROBOT_OPERATIONS } from './routes-robot.js';
import { TOOL_OPERATIONS } from './routes-tools.js';

export const OPERATIONS: readonly Operation[] = [...FIND_OPERATIONS, ...LIST_OPERATIONS, ...TOOL_OPERATIONS, ...ROBOT_OPERATIONS];
