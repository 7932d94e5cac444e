/**
 * An OTLP/HTTP receiver on 127.0.0.1 for the telemetry suites: keeps each request's method, path,
 * content type, authorization and body, and reads spans back out of OTLP/JSON trace exports,
 * each with the resource attributes of the process that sent it.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedBody {
  /** `METHOD /path content-type`. */
  type: string;
  authorization: string;
  text: string;
}

export interface Receiver {
  url: string;
  bodies: ReceivedBody[];
  server: Server;
  close(): Promise<void>;
}

/** Answers every request with `status` once its body is kept. */
export async function otlpReceiver(status = 200): Promise<Receiver> {
  const bodies: ReceivedBody[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({
        type: `${request.method} ${request.url} ${request.headers['content-type'] ?? ''}`,
        authorization: request.headers.authorization ?? '',
        text: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}

export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttribute[];
}

/** A span with the attributes of the resource (the process) that exported it. */
export interface ReceivedSpan extends OtlpSpan {
  resource: OtlpAttribute[];
}

export const isTraces = (body: ReceivedBody) => body.type.includes(' /v1/traces ');

/** The spans of OTLP/JSON trace export requests (metrics go to /v1/metrics). */
export function otlpSpans(bodies: readonly ReceivedBody[]): ReceivedSpan[] {
  return bodies.filter(isTraces).flatMap(({ text }) => {
    const payload = JSON.parse(text) as {
      resourceSpans: {
        resource?: { attributes?: OtlpAttribute[] };
        scopeSpans: { spans: OtlpSpan[] }[];
      }[];
    };
    return payload.resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) =>
        s.spans.map((span) => ({ ...span, resource: r.resource?.attributes ?? [] })),
      ),
    );
  });
}

const plain = (value: OtlpValue | undefined) =>
  value?.stringValue ?? value?.boolValue ?? value?.doubleValue ?? value?.intValue;

/** A span attribute's value, whatever its OTLP type. */
export const attr = (span: OtlpSpan, key: string) =>
  plain(span.attributes.find((a) => a.key === key)?.value);

/** A resource attribute of the process that exported the span. */
export const resourceAttr = (span: ReceivedSpan, key: string) =>
  plain(span.resource.find((a) => a.key === key)?.value);
