/**
 * GraphQL on the index (`hearth index serve`): `POST|GET /v1/graphql` with the catalog part of the schema,
 * `search` (spec §4.6). Public and read-only, like `GET /v1/search`: no token, the same per-address rate limit,
 * depth and cost limits. graphql-js loads on the first request and serves it (platform/graphql/mount.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mountLazyGraphql } from '../../../platform/graphql/mount.js';
import type { Catalog } from '../catalog.js';
import { SEARCH_QUERY_FIELD, SEARCH_SDL, type SearchArgs } from '../search/graphql-search.js';

export const INDEX_GRAPHQL_PATH = '/v1/graphql';

export const INDEX_SCHEMA = `${SEARCH_SDL}
type Query {${SEARCH_QUERY_FIELD}
  "The catalog version served now."
  catalogVersion: String!
}
`;

/** Mount `/v1/graphql` on the index server; `catalog()` is the catalog served now, `base(req)` the public base URL. */
export function mountIndexGraphql(app: FastifyInstance, catalog: () => Catalog, base: (req: FastifyRequest) => string) {
  return mountLazyGraphql(app, {
    path: INDEX_GRAPHQL_PATH,
    admit: (req) => base(req),
    async engine() {
      const [{ buildEngine }, { limitsRule }, errors, search] = await Promise.all([
        import('../../../platform/graphql/engine.js'),
        import('../../../platform/graphql/limits.js'),
        import('../../../platform/graphql/errors.js'),
        import('../search/graphql-search.js'),
      ]);
      const resolvers = errors.withProblems(
        {
          Query: {
            search: (_root: unknown, args: SearchArgs) => search.searchConnection(catalog(), args),
            catalogVersion: () => catalog().version,
          },
          RecipeNode: search.recipeNodeResolvers,
        },
        () => undefined,
      );
      return buildEngine({
        sdl: INDEX_SCHEMA,
        resolvers,
        rules: [limitsRule()],
        context: () => ({}),
        base: (b) => String(b ?? ''),
      });
    },
  });
}
