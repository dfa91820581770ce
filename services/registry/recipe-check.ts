/**
 * Recipe semantics for recipe collections (the publish check of registry-and-directory.md §4). The envelope
 * and temperature rules are the safety kernel's (safety/validate-recipe.ts): every op known, temperatures
 * numbers inside the op's envelope, heat levels able to hold it, pressures in band, a declared hash that
 * matches. Here only the shape a collection needs is added: a recipe object with an id and process nodes.
 */
import { validateRecipeSemantics } from '../../safety/validate-recipe.js';

export interface RecipeProblem {
  code: 'semantics' | 'hash';
  /** JSON pointer inside the recipe. */
  pointer: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems of one recipe document (an empty list when it passes). */
export function recipeProblems(recipe: unknown): RecipeProblem[] {
  if (!isObj(recipe)) return [{ code: 'semantics', pointer: '', message: 'a recipe must be a JSON object' }];
  const problems: RecipeProblem[] = [];
  if (typeof recipe.id !== 'string' || recipe.id === '')
    problems.push({ code: 'semantics', pointer: '/id', message: 'a recipe needs an "id"' });
  const nodes = isObj(recipe.process) ? recipe.process.nodes : undefined;
  if (!Array.isArray(nodes) || nodes.length === 0) {
    problems.push({ code: 'semantics', pointer: '/process/nodes', message: 'a recipe needs a non-empty process.nodes list' });
  } else {
    nodes.forEach((n, i) => {
      if (!isObj(n) || typeof n.op !== 'string')
        problems.push({ code: 'semantics', pointer: `/process/nodes/${i}`, message: 'a process node needs an "op"' });
    });
  }
  for (const issue of validateRecipeSemantics(recipe)) {
    problems.push({ code: issue.code === 'hash' ? 'hash' : 'semantics', pointer: issue.path, message: issue.message });
  }
  return problems;
}

/** The recipes of a collection document: an array of recipes, `{recipes: [...]}`, or one recipe. */
export function recipesOf(collection: unknown): unknown[] | null {
  if (Array.isArray(collection)) return collection;
  if (isObj(collection) && Array.isArray(collection.recipes)) return collection.recipes;
  if (isObj(collection) && isObj(collection.process)) return [collection];
  return null;
}
