/**
 * Dry runs per second: koshari (20 steps, deep fry included) on the demo fryer robot with a person present,
 * the default pack plus the fryer's own limits. Target: at least 20,000 dry runs per second.
 */
import { readFileSync } from 'node:fs';
import { dryRun } from '../safety/dry-run.js';
import { defaultSafetyLimits } from '../safety/limits.js';
import type { SafetyLimits } from '../safety/types.js';
import { report, throughput } from './stats.js';

const read = (p: string) => JSON.parse(readFileSync(new URL(`../examples/${p}`, import.meta.url), 'utf8')) as unknown;
const recipe = read('recipes/koshari.svc.json');
const capabilities = read('devices/demo-fryer-robot.json');
const limits = [defaultSafetyLimits(), read('limits/demo-fryer.limits.json') as SafetyLimits];
const now = new Date('2026-10-05T12:00:00Z');

const accepted = dryRun({ recipe, capabilities, limits, humanPresent: true, now });
if (accepted.state !== 'accepted') throw new Error(`koshari should be accepted with a person present, got ${accepted.refusal?.reason}`);

report(
  'dry run koshari on demo-fryer-robot, person present (accepted, 20 steps)',
  throughput(() => dryRun({ recipe, capabilities, limits, humanPresent: true, now }), 5, 1000),
  'runs/s',
  '>= 20000 runs/s',
);
report(
  'dry run koshari on demo-fryer-robot, nobody present (refused at n7)',
  throughput(() => dryRun({ recipe, capabilities, limits, humanPresent: false, now }), 5, 500),
  'runs/s',
);
