/**
 * Providers added from the app keep whether their models take images: the person's choice when
 * given, else the kind's default; a connection saved before the choice existed reads the default.
 */
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_TAKES_IMAGES,
  ConnectionBook,
} from '../../../src/main/core/models/connections.js';
import { openDatabase } from '../../../src/main/core/storage/database.js';

describe('ConnectionBook', () => {
  it('stores the takes-images choice, and reads an older row as its kind’s default', () => {
    const db = openDatabase(':memory:', { vectors: false });
    try {
      const book = new ConnectionBook(db);
      const base = { endpoint: 'http://127.0.0.1:1/v1', keyName: null, models: ['m'] };
      book.save({ ...base, name: 'llava', kind: 'openai-compatible', takesImages: true });
      book.save({ ...base, name: 'claude', kind: 'anthropic', takesImages: false });
      expect(book.list().map((c) => [c.name, c.takesImages])).toEqual([
        ['claude', false],
        ['llava', true],
      ]);
      // A row from before the column: null, read as the kind's default.
      db.prepare('update model_connections set takes_images = null').run();
      expect(book.get('claude')?.takesImages).toBe(CONNECTION_TAKES_IMAGES.anthropic);
      expect(book.get('llava')?.takesImages).toBe(CONNECTION_TAKES_IMAGES['openai-compatible']);
      expect(CONNECTION_TAKES_IMAGES).toEqual({
        openai: true,
        anthropic: true,
        gemini: true,
        'openai-compatible': false,
      });
    } finally {
      db.close();
    }
  });
});
