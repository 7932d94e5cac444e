/** Sends a GGUF file picked or dropped in the app to the core, piece by piece, over the contract. */
import { IMPORT_CHUNK_BYTES, type ModelsState, type PincerApi } from '../../../shared/ipc';

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes a bounded number of arguments.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

export async function importModelFile(
  bridge: PincerApi,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<{ fileName: string; note?: string; models: ModelsState }> {
  const { importId } = await bridge.invoke('models.import.begin', {
    fileName: file.name,
    sizeBytes: file.size,
  });
  try {
    for (let offset = 0; offset < file.size; offset += IMPORT_CHUNK_BYTES) {
      const piece = new Uint8Array(
        await file.slice(offset, offset + IMPORT_CHUNK_BYTES).arrayBuffer(),
      );
      await bridge.invoke('models.import.chunk', { importId, offset, data: base64(piece) });
      onProgress(Math.min(1, (offset + piece.length) / file.size));
    }
    return await bridge.invoke('models.import.finish', { importId });
  } catch (error) {
    await bridge.invoke('models.import.cancel', { importId }).catch(() => undefined);
    throw error;
  }
}
