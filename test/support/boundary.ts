import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface BoundaryViolation {
  file: string;
  specifier: string;
  rule: string;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;

async function listSources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return listSources(full);
      return Promise.resolve(SOURCE.test(entry.name) ? [full] : []);
    }),
  );
  return nested.flat();
}

/**
 * The house rules of ARCHITECTURE.md, checked on real import graphs: TypeScript's own
 * pre-processor finds static imports, re-exports, dynamic `import()` and `require()`.
 */
export async function findBoundaryViolations(root: string): Promise<BoundaryViolation[]> {
  const srcRoot = path.join(root, 'src');
  const violations: BoundaryViolation[] = [];
  for (const file of await listSources(srcRoot)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const text = await readFile(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName: specifier } of importedFiles) {
      const resolved = specifier.startsWith('.')
        ? path
            .relative(root, path.resolve(path.dirname(file), specifier))
            .split(path.sep)
            .join('/')
        : null;
      const mayUseElectron = rel.startsWith('src/main/app/') || rel.startsWith('src/preload/');
      if ((specifier === 'electron' || specifier.startsWith('electron/')) && !mayUseElectron) {
        violations.push({
          file: rel,
          specifier,
          rule: 'only src/main/app and src/preload import electron',
        });
      }
      if (rel.startsWith('src/main/core/') && resolved) {
        if (resolved.startsWith('src/main/app/') || resolved === 'src/main/app') {
          violations.push({
            file: rel,
            specifier,
            rule: 'core must not import the Electron shell',
          });
        }
        if (resolved.startsWith('src/renderer/')) {
          violations.push({ file: rel, specifier, rule: 'core must not import the renderer' });
        }
      }
      if (rel.startsWith('src/shared/')) {
        if (specifier.startsWith('node:') || specifier === 'electron') {
          violations.push({
            file: rel,
            specifier,
            rule: 'shared code is pure: no node:, no electron',
          });
        }
        if (resolved && !resolved.startsWith('src/shared/')) {
          violations.push({ file: rel, specifier, rule: 'shared code imports only shared code' });
        }
      }
      if (
        rel.startsWith('src/renderer/') &&
        (specifier.startsWith('node:') || resolved?.startsWith('src/main/'))
      ) {
        violations.push({
          file: rel,
          specifier,
          rule: 'the renderer reaches the core only through IPC',
        });
      }
    }
  }
  return violations;
}
