/**
 * A 127.0.0.1 file server that trickles its bodies (small chunks with pauses), so a browser test
 * can watch a model download's progress bar move. Honours HEAD and single byte ranges, which
 * node-llama-cpp's downloader uses.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowFileServer {
  url(name: string): string;
  close(): Promise<void>;
}

export async function startSlowFileServer(
  files: Record<string, Buffer>,
  { chunkBytes = 8192, pauseMs = 20 } = {},
): Promise<SlowFileServer> {
  const server = createServer(async (req, res) => {
    const body = files[decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1))];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = match ? Number(match[1]) : 0;
    const end = match?.[2] ? Math.min(Number(match[2]), body.length - 1) : body.length - 1;
    res.writeHead(match ? 206 : 200, {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
      'content-length': String(end - start + 1),
      ...(match ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    for (let at = start; at <= end && !res.destroyed; at += chunkBytes) {
      res.write(body.subarray(at, Math.min(end + 1, at + chunkBytes)));
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
