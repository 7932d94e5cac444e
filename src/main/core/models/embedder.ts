/** Anything that turns texts into vectors of one fixed width: the local engine, a cloud API. */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
