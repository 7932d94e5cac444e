import path from 'node:path';

export const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/ckp');
export const fixture = (...parts: string[]) => path.join(FIXTURES, ...parts);
export const REPO = path.resolve(import.meta.dirname, '../../..');
export const RESOURCES = path.join(REPO, 'resources');
