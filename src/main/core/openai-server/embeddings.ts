/** POST /v1/embeddings: vectors from the embedding model, as floats or base64 float32. */
import { invalidParam } from './errors.js';
import { sendJson } from './http.js';
import type { PostRoute } from './route.js';
import { type EmbeddingRequest, embeddingRequest } from './wire.js';

export const embeddingsRoute: PostRoute<EmbeddingRequest> = {
  schema: embeddingRequest,
  prepare(body) {
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    return {
      model: body.model,
      stream: false,
      async run(ctx) {
        const { vectors, promptTokens } = await ctx.backend.embed(body.model, texts);
        const width = vectors[0]?.length ?? 0;
        if (body.dimensions !== undefined && body.dimensions !== width)
          throw invalidParam(
            `${body.model} makes ${width}-dimensional vectors; it cannot shorten them to ${body.dimensions}`,
            'dimensions',
          );
        sendJson(ctx.res, 200, {
          object: 'list',
          model: body.model,
          data: vectors.map((vector, index) => ({
            object: 'embedding',
            index,
            embedding:
              body.encoding_format === 'base64'
                ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString(
                    'base64',
                  )
                : Array.from(vector),
          })),
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
        });
        return {
          usage: { inputTokens: promptTokens, evaluatedInputTokens: promptTokens, outputTokens: 0 },
        };
      },
    };
  },
};
