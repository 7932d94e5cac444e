import { describe, expect, it } from 'vitest';
import { type GpuMemory, placementOf, placementText } from '../../src/shared/gpu-fit.js';

const GB = 1024 ** 3;
const gpu = (freeGb: number): GpuMemory => ({
  backend: 'cuda',
  devices: ['NVIDIA RTX 4070'],
  totalBytes: 12 * GB,
  freeBytes: freeGb * GB,
  unified: false,
});

describe('where a local model would run', () => {
  it('runs on the processor without a GPU, or with one whose memory is all taken', () => {
    expect(placementOf(6 * GB, null)).toBe('cpu');
    expect(placementText(6 * GB, null)).toBe('runs on the processor (no supported GPU found)');
    expect(placementOf(6 * GB, gpu(0))).toBe('cpu');
    expect(placementText(6 * GB, gpu(0))).toBe(
      'runs on the processor (NVIDIA RTX 4070 has no memory free)',
    );
  });

  it('fits in GPU memory only with a tenth of it to spare, else it is split', () => {
    expect(placementOf(6 * GB, gpu(10))).toBe('gpu');
    expect(placementText(6 * GB, gpu(10))).toBe('fits in GPU memory (NVIDIA RTX 4070: 10 GB free)');
    expect(placementOf(9 * GB, gpu(10))).toBe('gpu');
    expect(placementOf(9.5 * GB, gpu(10))).toBe('split');
    expect(placementText(9.5 * GB, gpu(10))).toMatch(
      /^partly on the GPU \(NVIDIA RTX 4070: 10 GB free\)/,
    );
  });

  it('names the backend when the GPU has no device name', () => {
    expect(placementText(GB, { ...gpu(4), devices: [] })).toBe(
      'fits in GPU memory (cuda: 4.0 GB free)',
    );
  });
});
