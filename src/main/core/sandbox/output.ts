/**
 * Captures a child's output without holding more than a fixed budget: the head and the most
 * recent tail are kept, what falls between is counted and reported in a notice, so an endless
 * `yes` costs memory of the cap and the end of a long build log (where errors are) survives.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get bytesSeen(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headRoom = Math.floor(this.maxBytes / 2) - this.headSize;
    if (headRoom > 0) {
      const part = chunk.subarray(0, headRoom);
      this.head.push(part);
      this.headSize += part.length;
      chunk = chunk.subarray(part.length);
      if (chunk.length === 0) return;
    }
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    const tailMax = this.maxBytes - Math.floor(this.maxBytes / 2);
    while (this.tailSize > tailMax && this.tail.length > 0) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailSize - tailMax;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
      }
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    const kept = this.headSize + this.tailSize;
    if (kept >= this.total) return head + tail;
    const dropped = this.total - kept;
    return `${head.replace(/\uFFFD$/, '')}\n[output truncated: ${this.total} bytes in all, ${dropped} bytes omitted here]\n${tail.replace(/^\uFFFD/, '')}`;
  }
}
