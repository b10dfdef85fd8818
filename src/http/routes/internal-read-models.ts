import { z } from '../openapi/zod.js';
import { defineRoute } from '../route.js';
import { ApiError } from '../../domain/errors.js';
import type { ReadModels } from '../../application/read-models.js';
import { queryNumber } from '../schemas/common.js';

const Position = z.string().regex(/^\d+$/).openapi({ description: 'A log position (decimal: it may exceed 2^53).' });

const ProjectionStatusSchema = z
  .object({
    name: z.string(),
    collection: z.string(),
    position: Position.openapi({ description: 'Last log position this process has applied.' }),
    checkpoint: Position.openapi({
      description: 'Position stored with the read model (saved in batches; may trail position briefly).',
    }),
    head: Position.openapi({ description: 'Newest position in the log.' }),
    lag: Position.openapi({ description: 'head - position: events still to apply.' }),
  })
  .openapi('ProjectionStatus');

const StoredDocumentSchema = z
  .object({
    id: z.string(),
    seq: z.int().openapi({ description: 'Events absorbed (the compare-and-set token).' }),
    versions: z.record(z.string(), z.int()).openapi({ description: 'Last revision absorbed, per source stream.' }),
    doc: z.record(z.string(), z.unknown()),
  })
  .openapi('ReadModelDocument');

const DocumentsQuery = z
  .object({
    limit: queryNumber(1, 5000, true).default(1000),
    starting_after: z.string().min(1).max(200).optional().openapi({ description: 'The last id of the previous page.' }),
  })
  .strict();

const Pagination = z
  .object({ limit: z.int(), has_more: z.boolean(), next_starting_after: z.string().nullable() })
  .openapi('ReadModelPagination');

/** Starts a rebuild (API and console alike): 503 when the service's stop came first. */
export async function rebuild(readModels: ReadModels, name: string): Promise<void> {
  if (!(await readModels.runner(name).rebuild()))
    throw new ApiError(
      'service_unavailable',
      'The service is shutting down; no replay was started (a read model already emptied is replayed at the next start).',
    );
}

/**
 * Projections for operators and auditors (ADMIN_TOKEN): progress, rebuild, and every document of a
 * read model. In the embedded mode the read models live inside the server process (a private temporary database), so this is the
 * only way an audit (`audit verify`) can see what the service is serving.
 */
export function internalReadModelRoutes(deps: { readModels: ReadModels }) {
  const collections = () => new Set([...deps.readModels.runners.values()].map((r) => r.projection.collection));
  return [
    defineRoute({
      method: 'get',
      path: '/internal/projections',
      operationId: 'listProjections',
      summary: "Each projection's position, stored checkpoint and lag behind the log",
      tags: ['Operations'],
      auth: 'admin',
      responses: { 200: { description: 'One entry per projection.', data: z.array(ProjectionStatusSchema) } },
      handler: async () => ({ data: await deps.readModels.status() }),
    }),
    defineRoute({
      method: 'post',
      path: '/internal/projections/:name/rebuild',
      operationId: 'rebuildProjection',
      summary: 'Drop a read model and replay the whole log into it',
      description:
        'Answers once the replay has started; follow it with GET /internal/projections until lag is 0. Reads wait for it (bounded) meanwhile.',
      tags: ['Operations'],
      auth: 'admin',
      request: { params: z.object({ name: z.string().min(1).max(80) }) },
      responses: { 202: { description: 'The rebuild has started.', data: ProjectionStatusSchema } },
      errors: [404],
      handler: async ({ params }) => {
        await rebuild(deps.readModels, params.name);
        const status = (await deps.readModels.status()).find((s) => s.name === params.name)!;
        return { status: 202, data: status };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/internal/read-models/:collection',
      operationId: 'listReadModelDocuments',
      summary: 'Every document of a read model, ordered by id (audits)',
      tags: ['Operations'],
      auth: 'admin',
      request: { params: z.object({ collection: z.string().min(1).max(80) }), query: DocumentsQuery },
      responses: {
        200: { description: 'A page of documents.', data: z.array(StoredDocumentSchema), pagination: Pagination },
      },
      errors: [404],
      handler: async ({ params, query }) => {
        if (!collections().has(params.collection)) {
          throw new ApiError(
            'not_found',
            `No read model named ${params.collection}; known: ${[...collections()].join(', ')}.`,
            { param: 'collection' },
          );
        }
        // One page read, plus one document to know whether more follow.
        const rows = await deps.readModels.store.pageById(
          params.collection,
          query.starting_after ?? null,
          query.limit + 1,
        );
        const page = rows.slice(0, query.limit);
        const has_more = rows.length > query.limit;
        return {
          data: page,
          pagination: {
            limit: query.limit,
            has_more,
            next_starting_after: has_more ? page[page.length - 1]!.id : null,
          },
        };
      },
    }),
  ];
}
