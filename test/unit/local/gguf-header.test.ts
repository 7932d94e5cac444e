import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bufferSource,
  checkGgufHeader,
  GGUF_LIMITS,
  type GgufHeader,
  GgufHeaderError,
  readGgufHeader,
} from '../../../src/main/core/local/gguf-header.js';
import { GgufWriter, HOSTILE_HEADER, T } from '../../fixtures/gguf-craft.js';
import { buildTinyGguf } from '../../fixtures/tiny-gguf.js';

const check = (bytes: Buffer, limits = GGUF_LIMITS) => checkGgufHeader(bufferSource(bytes), limits);

/** The refusal a header gets; fails the test when it is accepted or fails some other way. */
async function refusal(bytes: Buffer, limits = GGUF_LIMITS): Promise<GgufHeaderError> {
  const outcome = await check(bytes, limits).then(
    (header: GgufHeader) => header,
    (error: unknown) => error,
  );
  if (outcome instanceof GgufHeaderError) return outcome;
  throw new Error(`expected a GgufHeaderError, got ${String(outcome)}`);
}

/** One tensor info (F32 by default), then 64 bytes of data. */
function oneTensor(dims: (number | bigint)[], type = 0, offset: number | bigint = 0): Buffer {
  const w = new GgufWriter().start(1, 0).tensor('t', dims, type, offset).padTo(32);
  return w.zeros(64).build();
}

describe('readGgufHeader on sound files', () => {
  it('accepts the tiny test models and reports their metadata and every tensor inside the file', async () => {
    for (const options of [{}, { tokenizer: 'bpe' as const }]) {
      const bytes = buildTinyGguf(options);
      const header = await check(bytes);
      expect(header.version).toBe(3);
      expect(header.metadata.get('general.architecture')).toBe('llama');
      expect(header.metadata.get('llama.context_length')).toBe(2048);
      expect(header.metadata.get('tokenizer.chat_template')).toMatch(/im_start/);
      expect(header.tensors.length).toBe(header.tensorCount);
      expect(header.bytesNeeded).toBe(bytes.length);
      for (const tensor of header.tensors) {
        expect(tensor.start % header.alignment).toBe(0);
        expect(tensor.start + tensor.bytes).toBeLessThanOrEqual(bytes.length);
      }
    }
  });

  it('accepts a header with no tensors, and arrays nested within the cap', async () => {
    const w = new GgufWriter().start(0, 2).kvString('general.architecture', 'x');
    // An array of two arrays of three u8 each.
    w.str('nested').u32(T.array).u32(T.array).u64(2);
    for (let i = 0; i < 2; i++)
      w.u32(T.u8)
        .u64(3)
        .raw(Buffer.from([1, 2, 3]));
    const header = await check(w.build());
    expect(header.metadata.get('general.architecture')).toBe('x');
    expect(header.tensors).toEqual([]);
  });
});

describe('readGgufHeader refuses what does not fit', () => {
  it("refuses issue 24's 24-byte header claiming 2^63-1 tensors, naming the count and the size", async () => {
    const error = await refusal(HOSTILE_HEADER);
    expect(error.kind).toBe('invalid');
    expect(error.reason).toBe(
      'tensor count 9223372036854775807 exceeds what a 24-byte file can hold (the file is corrupt or cut short)',
    );
  });

  it('refuses a metadata count, a key length, a string and an array longer than the file', async () => {
    expect((await refusal(new GgufWriter().start(0, 2n ** 62n).build())).reason).toMatch(
      /^metadata count 4611686018427387904 exceeds what a 24-byte file can hold/,
    );
    const key = new GgufWriter()
      .start(0, 1)
      .str('k', 2n ** 64n - 1n)
      .u32(T.u8)
      .zeros(1)
      .build();
    expect((await refusal(key)).reason).toMatch(
      /metadata key 0 is 18446744073709551615 bytes long/,
    );
    const value = new GgufWriter().start(0, 1).str('k').u32(T.string).str('v', 1_000_000);
    expect((await refusal(value.build())).reason).toMatch(/exceeds what a \d+-byte file can hold/);
    const array = new GgufWriter()
      .start(0, 1)
      .str('k')
      .u32(T.array)
      .u32(T.u64)
      .u64(2n ** 61n);
    expect((await refusal(array.build())).reason).toMatch(
      /^"k" length 2305843009213693952 exceeds/,
    );
  });

  it('says a file cut inside its header is cut short', async () => {
    const bytes = new GgufWriter().start(0, 1).str('general.name').u32(T.string).str('abc').build();
    const error = await refusal(bytes.subarray(0, bytes.length - 2));
    expect(error.kind).toBe('truncated');
    expect(error.reason).toMatch(/the file ends at byte \d+, inside the value of "general.name"/);
  });

  it('refuses other formats, empty files and unsupported versions', async () => {
    expect((await refusal(Buffer.from('this is text, not weights'))).kind).toBe('not_gguf');
    expect((await refusal(Buffer.alloc(0))).kind).toBe('not_gguf');
    expect((await refusal(new GgufWriter().start(0, 0, 1).build())).reason).toMatch(
      /GGUF version 1 is not supported/,
    );
    // A big-endian GGUF reads its version as 0x03000000.
    expect((await refusal(new GgufWriter().start(0, 0, 0x03000000).build())).reason).toMatch(
      /GGUF version 50331648/,
    );
  });

  it('refuses unknown value types and arrays nested deeper than the cap', async () => {
    const unknown = new GgufWriter().start(0, 1).str('k').u32(13).zeros(8).build();
    expect((await refusal(unknown)).reason).toBe('"k" has unknown value type 13');
    const w = new GgufWriter().start(0, 1).str('deep').u32(T.array);
    for (let depth = 0; depth < 4; depth++) w.u32(T.array).u64(1);
    w.u32(T.u8).u64(0).zeros(16);
    expect((await refusal(w.build())).reason).toMatch(/nests arrays deeper than 3 levels/);
  });

  it('refuses an alignment that is not a power of two', async () => {
    const odd = new GgufWriter().start(0, 1).kvU32('general.alignment', 24).build();
    expect((await refusal(odd)).reason).toMatch(/general.alignment 24 is not a power of two/);
    const zero = new GgufWriter().start(0, 1).kvU32('general.alignment', 0).build();
    expect((await refusal(zero)).reason).toMatch(/not a power of two/);
  });

  it('refuses tensors llama.cpp would refuse, each with its reason', async () => {
    const cases: [Buffer, RegExp][] = [
      [oneTensor([8, 1, 1, 1, 1]), /has 5 dimensions \(at most 4\)/],
      [oneTensor([8], 4), /unknown ggml type 4/],
      [oneTensor([8], 99), /unknown ggml type 99/],
      [oneTensor([2n ** 63n]), /negative dimension/],
      [oneTensor([2n ** 40n, 2n ** 40n]), /more elements than a 64-bit count holds/],
      [oneTensor([16], 2), /rows of 16, not a multiple of its type's block of 32/],
      [oneTensor([4], 0, 8), /starts at 8, not a multiple of the alignment 32/],
    ];
    for (const [bytes, reason] of cases) expect((await refusal(bytes)).reason).toMatch(reason);
    const long = new GgufWriter().start(1, 0).tensor('x'.repeat(64), [1], 0, 0).zeros(64);
    expect((await refusal(long.build())).reason).toMatch(/is 64 bytes long \(at most 63\)/);
    const twice = new GgufWriter().start(2, 0).tensor('a', [1], 0, 0).tensor('a', [1], 0, 32);
    expect((await refusal(twice.padTo(32).zeros(64).build())).reason).toBe(
      'tensor "a" appears twice',
    );
  });

  it('says tensors that run past the end of the file are cut short', async () => {
    const error = await refusal(oneTensor([1024]));
    expect(error.kind).toBe('truncated');
    expect(error.reason).toMatch(/tensor "t" ends at byte \d+/);
    expect((await refusal(oneTensor([8], 0, 2n ** 62n))).kind).toBe('truncated');
  });

  it('holds counts and header size to the caps, whatever the file size', async () => {
    const limits = { ...GGUF_LIMITS, maxTensors: 2, maxMetadata: 2, maxHeaderBytes: 4096 };
    const tensors = new GgufWriter().start(3, 0).zeros(200).build();
    expect((await refusal(tensors, limits)).reason).toBe(
      'tensor count 3 is more than the 2 Pincer accepts',
    );
    const metadata = new GgufWriter().start(0, 3).zeros(200).build();
    expect((await refusal(metadata, limits)).reason).toMatch(/metadata count 3 is more than/);
    // 1000 empty strings: 8 kB of lengths, past a 4 kB budget.
    const vocab = new GgufWriter().start(0, 1).str('v').u32(T.array).u32(T.string).u64(1000);
    const error = await refusal(vocab.zeros(8000).build(), limits);
    expect(error.reason).toMatch(/header runs past 4096 bytes/);
  });
});

describe('readGgufHeader on what is not a regular file', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-gguf-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a FIFO without blocking on it (no writer ever opens it), and a directory', async () => {
    const fifo = path.join(dir, 'pipe.gguf');
    execFileSync('mkfifo', [fifo]);
    const error = await readGgufHeader(fifo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GgufHeaderError);
    expect((error as GgufHeaderError).kind).toBe('not_file');
    const folder = await readGgufHeader(dir).catch((e: unknown) => e);
    expect((folder as GgufHeaderError).kind).toBe('not_file');
  });

  it('reads a real file through the same checks', async () => {
    const file = path.join(dir, 'h.gguf');
    await writeFile(file, HOSTILE_HEADER);
    const error = await readGgufHeader(file).catch((e: unknown) => e);
    expect((error as GgufHeaderError).reason).toMatch(/^tensor count 9223372036854775807 exceeds/);
  });
});
