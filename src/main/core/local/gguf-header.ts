/**
 * A bounded reader of GGUF headers. Model files are hostile input: node-llama-cpp's own parser
 * trusts the counts it reads (a 24-byte file claiming 2^63 tensors kept it busy, and growing,
 * forever), so every file is walked here first, with every count, length and offset checked
 * against the file's size and against caps no real model comes near, before node-llama-cpp or
 * llama.cpp sees it. The file is read in chunks and never held whole in memory.
 *
 * Layout (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md): magic "GGUF", version
 * u32, tensor count u64, metadata count u64, the key/value pairs, the tensor infos, padding to
 * the alignment, then the tensor data. All little-endian.
 */

import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { PincerError } from '../errors.js';

export interface GgufLimits {
  /**
   * Bytes the header (metadata and tensor infos) may span. The largest real ones (262k-token
   * vocabularies, 500k merges) take 10-20 MB; a hostile one is walked in well under a second.
   */
  maxHeaderBytes: number;
  maxTensors: number;
  maxMetadata: number;
  /** GGUF allows arrays of arrays; llama.cpp reads none, so a shallow cap loses nothing. */
  maxArrayDepth: number;
  maxKeyBytes: number;
}

export const GGUF_LIMITS: GgufLimits = {
  maxHeaderBytes: 64 * 1024 * 1024,
  maxTensors: 65_536,
  maxMetadata: 65_536,
  maxArrayDepth: 3,
  maxKeyBytes: 65_535,
};

export type GgufScalar = number | bigint | boolean | string;

export interface GgufHeader {
  version: number;
  fileBytes: number;
  tensorCount: number;
  metadataCount: number;
  alignment: number;
  /** Where the tensor data begins. */
  dataOffset: number;
  /** The end of the furthest tensor: the least size the file must have. */
  bytesNeeded: number;
  /** Scalar metadata: every number and bool, and the few strings Pincer reads. */
  metadata: ReadonlyMap<string, GgufScalar>;
  tensors: readonly GgufTensor[];
}

export interface GgufTensor {
  name: string;
  dims: readonly bigint[];
  type: number;
  /** Where its data begins, from the start of the file. */
  start: number;
  bytes: number;
}

/**
 * Why a header was refused: `truncated` when the file ends too soon, `not_gguf` for another
 * kind of file, `not_file` for a directory, FIFO or device, else `invalid`.
 */
export class GgufHeaderError extends PincerError {
  override readonly name = 'GgufHeaderError';
  constructor(
    readonly kind: 'truncated' | 'invalid' | 'not_gguf' | 'not_file',
    readonly reason: string,
  ) {
    super('invalid_request', reason);
  }
}

const MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const DEFAULT_ALIGNMENT = 32;
const GGML_MAX_NAME = 64; // llama.cpp refuses tensor names of this length or more
const GGML_MAX_DIMS = 4;
const INT64_MAX = (1n << 63n) - 1n;
const KEPT_STRINGS = new Set(['general.architecture', 'general.name', 'tokenizer.chat_template']);
const MAX_KEPT_STRING = 1024 * 1024;
const CHUNK = 256 * 1024;

enum ValueType {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
}

const FIXED_SIZE: Partial<Record<ValueType, number>> = {
  [ValueType.U8]: 1,
  [ValueType.I8]: 1,
  [ValueType.Bool]: 1,
  [ValueType.U16]: 2,
  [ValueType.I16]: 2,
  [ValueType.U32]: 4,
  [ValueType.I32]: 4,
  [ValueType.F32]: 4,
  [ValueType.U64]: 8,
  [ValueType.I64]: 8,
  [ValueType.F64]: 8,
};

/**
 * [bytes per block, elements per block] of each ggml type, as the bundled llama.cpp reports
 * them (ggml_type_size / ggml_blck_size); types llama.cpp removed (4, 5, 31-33, 36-38) are absent.
 */
const GGML_TYPES: Record<number, readonly [bytes: number, elements: number]> = {
  0: [4, 1], // F32
  1: [2, 1], // F16
  2: [18, 32], // Q4_0
  3: [20, 32], // Q4_1
  6: [22, 32], // Q5_0
  7: [24, 32], // Q5_1
  8: [34, 32], // Q8_0
  9: [36, 32], // Q8_1
  10: [84, 256], // Q2_K
  11: [110, 256], // Q3_K
  12: [144, 256], // Q4_K
  13: [176, 256], // Q5_K
  14: [210, 256], // Q6_K
  15: [292, 256], // Q8_K
  16: [66, 256], // IQ2_XXS
  17: [74, 256], // IQ2_XS
  18: [98, 256], // IQ3_XXS
  19: [50, 256], // IQ1_S
  20: [18, 32], // IQ4_NL
  21: [110, 256], // IQ3_S
  22: [82, 256], // IQ2_S
  23: [136, 256], // IQ4_XS
  24: [1, 1], // I8
  25: [2, 1], // I16
  26: [4, 1], // I32
  27: [8, 1], // I64
  28: [8, 1], // F64
  29: [56, 256], // IQ1_M
  30: [2, 1], // BF16
  34: [54, 256], // TQ1_0
  35: [66, 256], // TQ2_0
  39: [17, 32], // MXFP4
  40: [36, 64], // NVFP4
  41: [18, 128], // Q1_0
  42: [18, 64], // Q2_0
};

/**
 * Reads and checks the header of the GGUF file at `file`; throws GgufHeaderError on anything
 * out of range. Opened non-blocking and checked to be a regular file after opening, so a FIFO
 * or a device named *.gguf cannot stall the caller.
 */
export async function readGgufHeader(
  file: string,
  limits: GgufLimits = GGUF_LIMITS,
): Promise<GgufHeader> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new GgufHeaderError('not_file', 'not a regular file');
    return await checkGgufHeader(fileSource(handle, info.size), limits);
  } finally {
    await handle.close();
  }
}

/** Where the header's bytes come from: a file, or memory (tests, fuzzing). */
export interface ByteSource {
  readonly size: number;
  /** Reads up to `into.length` bytes at `position`; resolves to how many it read. */
  read(into: Buffer, position: number): Promise<number>;
}

export function bufferSource(bytes: Uint8Array): ByteSource {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    size: data.length,
    read: async (into, position) => data.copy(into, 0, position, position + into.length),
  };
}

function fileSource(handle: FileHandle, size: number): ByteSource {
  return {
    size,
    read: async (into, position) => (await handle.read(into, 0, into.length, position)).bytesRead,
  };
}

/** Walks and checks a GGUF header; throws GgufHeaderError on anything out of range. */
export function checkGgufHeader(
  source: ByteSource,
  limits: GgufLimits = GGUF_LIMITS,
): Promise<GgufHeader> {
  return parseHeader(new Cursor(source, limits.maxHeaderBytes), limits);
}

async function parseHeader(c: Cursor, limits: GgufLimits): Promise<GgufHeader> {
  if (c.size < 4 || (await c.u32('the magic')) !== MAGIC) {
    const start = c.size > 0 ? await c.peekStart() : '';
    throw new GgufHeaderError(
      'not_gguf',
      `not a GGUF model (it starts with ${JSON.stringify(start)}, not "GGUF")`,
    );
  }
  const version = await c.u32('the version');
  if (version !== 2 && version !== 3) {
    throw invalid(`GGUF version ${version} is not supported (only 2 and 3 are)`);
  }
  // Each tensor info takes at least 8 (name length) + 4 (dims) + 4 (type) + 8 (offset) bytes;
  // each key/value at least 8 (key length) + 4 (type) + 1 (the smallest value).
  const tensorCount = c.count(
    await c.u64('the tensor count'),
    'tensor count',
    24,
    limits.maxTensors,
  );
  const metadataCount = c.count(
    await c.u64('the metadata count'),
    'metadata count',
    13,
    limits.maxMetadata,
  );

  const metadata = new Map<string, GgufScalar>();
  for (let i = 0; i < metadataCount; i++) {
    const key = await c.string(`metadata key ${i}`, limits.maxKeyBytes);
    const type = await c.u32(`the type of "${key}"`);
    const value = await readValue(c, type, key, 0, limits);
    if (value !== undefined) metadata.set(key, value);
  }

  const alignment = alignmentOf(metadata);
  const names = new Set<string>();
  const infos: { name: string; dims: bigint[]; type: number; offset: bigint; bytes: bigint }[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = await c.string(`the name of tensor ${i}`, GGML_MAX_NAME - 1);
    if (names.has(name)) throw invalid(`tensor "${name}" appears twice`);
    names.add(name);
    const dimCount = await c.u32(`the dimension count of "${name}"`);
    if (dimCount > GGML_MAX_DIMS) {
      throw invalid(`tensor "${name}" has ${dimCount} dimensions (at most ${GGML_MAX_DIMS})`);
    }
    const dims: bigint[] = [];
    for (let d = 0; d < dimCount; d++) dims.push(await c.u64(`a dimension of "${name}"`));
    const type = await c.u32(`the type of "${name}"`);
    const offset = await c.u64(`the offset of "${name}"`);
    infos.push({ name, dims, type, offset, bytes: tensorBytes(name, dims, type) });
  }

  const dataOffset = alignUp(c.pos, alignment);
  let bytesNeeded = tensorCount > 0 ? dataOffset : c.pos;
  const tensors: GgufTensor[] = [];
  for (const tensor of infos) {
    if (tensor.offset % BigInt(alignment) !== 0n) {
      throw invalid(
        `tensor "${tensor.name}" starts at ${tensor.offset}, not a multiple of the alignment ${alignment}`,
      );
    }
    const end = BigInt(dataOffset) + tensor.offset + tensor.bytes;
    if (end > BigInt(c.size)) {
      throw new GgufHeaderError(
        'truncated',
        `it has ${c.size} bytes but tensor "${tensor.name}" ends at byte ${end}`,
      );
    }
    bytesNeeded = Math.max(bytesNeeded, Number(end));
    const { name, dims, type } = tensor;
    tensors.push({
      name,
      dims,
      type,
      start: dataOffset + Number(tensor.offset),
      bytes: Number(tensor.bytes),
    });
  }
  return {
    version,
    fileBytes: c.size,
    tensorCount,
    metadataCount,
    alignment,
    dataOffset,
    bytesNeeded,
    metadata,
    tensors,
  };
}

/** Reads one value (recursing into arrays up to the depth cap); returns the kept scalars. */
async function readValue(
  c: Cursor,
  type: number,
  key: string,
  depth: number,
  limits: GgufLimits,
): Promise<GgufScalar | undefined> {
  switch (type) {
    case ValueType.U8:
      return c.fixed(1, key, (b, at) => b.readUInt8(at));
    case ValueType.I8:
      return c.fixed(1, key, (b, at) => b.readInt8(at));
    case ValueType.Bool:
      return c.fixed(1, key, (b, at) => b.readUInt8(at) !== 0);
    case ValueType.U16:
      return c.fixed(2, key, (b, at) => b.readUInt16LE(at));
    case ValueType.I16:
      return c.fixed(2, key, (b, at) => b.readInt16LE(at));
    case ValueType.U32:
      return c.fixed(4, key, (b, at) => b.readUInt32LE(at));
    case ValueType.I32:
      return c.fixed(4, key, (b, at) => b.readInt32LE(at));
    case ValueType.F32:
      return c.fixed(4, key, (b, at) => b.readFloatLE(at));
    case ValueType.U64:
      return c.fixed(8, key, (b, at) => b.readBigUInt64LE(at));
    case ValueType.I64:
      return c.fixed(8, key, (b, at) => b.readBigInt64LE(at));
    case ValueType.F64:
      return c.fixed(8, key, (b, at) => b.readDoubleLE(at));
    case ValueType.String: {
      if (depth === 0 && KEPT_STRINGS.has(key)) {
        return c.string(`the value of "${key}"`, MAX_KEPT_STRING);
      }
      await c.skipString(`the value of "${key}"`);
      return undefined;
    }
    case ValueType.Array: {
      if (depth >= limits.maxArrayDepth) {
        throw invalid(`"${key}" nests arrays deeper than ${limits.maxArrayDepth} levels`);
      }
      const itemType = await c.u32(`the item type of "${key}"`);
      const size = FIXED_SIZE[itemType as ValueType];
      // The smallest item: a fixed-size value, an empty string (its length), or an empty array.
      const least = size ?? (itemType === ValueType.String ? 8 : 12);
      const length = c.count(await c.u64(`the length of "${key}"`), `"${key}" length`, least);
      if (size !== undefined) {
        c.skip(length * size, `the items of "${key}"`);
      } else if (itemType === ValueType.String) {
        await c.skipStrings(length, `the items of "${key}"`);
      } else if (itemType === ValueType.Array) {
        for (let i = 0; i < length; i++) await readValue(c, itemType, key, depth + 1, limits);
      } else {
        throw invalid(`"${key}" is an array of unknown type ${itemType}`);
      }
      return undefined;
    }
    default:
      throw invalid(`"${key}" has unknown value type ${type}`);
  }
}

function alignmentOf(metadata: ReadonlyMap<string, GgufScalar>): number {
  const value = metadata.get('general.alignment');
  if (value === undefined) return DEFAULT_ALIGNMENT;
  // llama.cpp requires a u32 power of two; a huge one would push the data past any file.
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value & (value - 1)) {
    throw invalid(`general.alignment ${String(value)} is not a power of two`);
  }
  return value;
}

/** The tensor's data size, refusing what llama.cpp refuses: unknown types, overflow, ragged rows. */
function tensorBytes(name: string, dims: bigint[], type: number): bigint {
  const traits = GGML_TYPES[type];
  if (!traits) throw invalid(`tensor "${name}" has unknown ggml type ${type}`);
  const [blockBytes, blockElements] = traits;
  let elements = 1n;
  for (const dim of dims) {
    if (dim > INT64_MAX) throw invalid(`tensor "${name}" has a negative dimension`);
    if (dim !== 0n && elements > INT64_MAX / dim) {
      throw invalid(`tensor "${name}" has more elements than a 64-bit count holds`);
    }
    elements *= dim;
  }
  const rowLength = dims[0] ?? 1n;
  if (rowLength % BigInt(blockElements) !== 0n) {
    throw invalid(
      `tensor "${name}" has rows of ${rowLength}, not a multiple of its type's block of ${blockElements}`,
    );
  }
  return (elements / BigInt(blockElements)) * BigInt(blockBytes);
}

function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}

function invalid(reason: string): GgufHeaderError {
  return new GgufHeaderError('invalid', reason);
}

/** Sequential little-endian reads through a small window of the file, within size and budget. */
class Cursor {
  pos = 0;
  private window = Buffer.alloc(0);
  private windowStart = 0;

  readonly size: number;

  constructor(
    private readonly source: ByteSource,
    private readonly budget: number,
  ) {
    this.size = source.size;
  }

  /** A count as a number, refused when its items could not fit in what is left of the file. */
  count(value: bigint, what: string, leastItemBytes: number, cap?: number): number {
    const room = BigInt(Math.max(0, this.size - this.pos));
    if (value * BigInt(leastItemBytes) > room) {
      throw invalid(
        `${what} ${value} exceeds what a ${this.size}-byte file can hold (the file is corrupt or cut short)`,
      );
    }
    if (cap !== undefined && value > BigInt(cap)) {
      throw invalid(`${what} ${value} is more than the ${cap} Pincer accepts`);
    }
    return Number(value);
  }

  async u32(what: string): Promise<number> {
    return this.fixed(4, what, (b, at) => b.readUInt32LE(at));
  }

  async u64(what: string): Promise<bigint> {
    return this.fixed(8, what, (b, at) => b.readBigUInt64LE(at));
  }

  async fixed<T>(bytes: number, what: string, read: (b: Buffer, at: number) => T): Promise<T> {
    const pending = this.need(bytes, what);
    if (pending) await pending;
    const value = read(this.window, this.pos - this.windowStart);
    this.pos += bytes;
    return value;
  }

  /** A length-prefixed UTF-8 string of at most `max` bytes. */
  async string(what: string, max: number): Promise<string> {
    const length = await this.u64(`the length of ${what}`);
    if (length > BigInt(max)) throw invalid(`${what} is ${length} bytes long (at most ${max})`);
    const bytes = Number(length);
    const pending = this.need(bytes, what);
    if (pending) await pending;
    const at = this.pos - this.windowStart;
    this.pos += bytes;
    return this.window.toString('utf8', at, at + bytes);
  }

  async skipString(what: string): Promise<void> {
    const length = await this.u64(`the length of ${what}`);
    this.skip(this.count(length, `the length of ${what}`, 1), what);
  }

  /** The hot loop of a vocabulary (100k+ strings): synchronous while the window holds them. */
  async skipStrings(count: number, what: string): Promise<void> {
    for (let i = 0; i < count; i++) {
      const pending = this.need(8, what);
      if (pending) await pending;
      const at = this.pos - this.windowStart;
      const low = this.window.readUInt32LE(at);
      const high = this.window.readUInt32LE(at + 4);
      this.pos += 8;
      // A length of 2^32 or more is refused by skip() as running past the file.
      this.skip(high === 0 ? low : Number.MAX_SAFE_INTEGER, what);
    }
  }

  skip(bytes: number, what: string): void {
    this.check(bytes, what);
    this.pos += bytes;
  }

  async peekStart(): Promise<string> {
    const head = Buffer.alloc(Math.min(4, this.size));
    await this.source.read(head, 0);
    return head.toString('latin1');
  }

  private check(bytes: number, what: string): void {
    if (this.pos + bytes > this.size) {
      throw new GgufHeaderError(
        'truncated',
        `the file ends at byte ${this.size}, inside ${what} (its header is incomplete)`,
      );
    }
    if (this.pos + bytes > this.budget) {
      throw invalid(`its header runs past ${this.budget} bytes, more than any real model's`);
    }
  }

  /** Makes `bytes` bytes at `pos` readable from the window; a promise only when it must read. */
  private need(bytes: number, what: string): Promise<void> | undefined {
    this.check(bytes, what);
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset + bytes <= this.window.length) return undefined;
    return this.fill(bytes, what);
  }

  private async fill(bytes: number, what: string): Promise<void> {
    const length = Math.min(Math.max(bytes, CHUNK), this.size - this.pos);
    const buffer = Buffer.allocUnsafe(length);
    const bytesRead = await this.source.read(buffer, this.pos);
    if (bytesRead < bytes) {
      throw new GgufHeaderError('truncated', `the file shrank while ${what} was read`);
    }
    this.window = buffer.subarray(0, bytesRead);
    this.windowStart = this.pos;
  }
}
