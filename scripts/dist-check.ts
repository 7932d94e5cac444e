/**
 * `npm run dist:check`: everything `npm run dist` depends on, checked without downloading
 * anything (electron-builder would fetch Electron's binary first). It validates
 * electron-builder.yml with electron-builder's own schema validator, then checks targets,
 * icons, native modules unpacked from ASAR, the bundled-model extra resources, the fuses of the
 * afterPack hook, the updater being off by default, and that every package the built main
 * process imports ships as a production dependency. It lists what would be packaged.
 *
 *   tsx scripts/dist-check.ts [--json] [--project DIR] [--no-build] [--config FILE] [--arch ARCH]
 * With --config electron-builder.gpu.yml it checks the GPU variant; --arch counts another
 * target's native builds (those installed here).
 * Exit code 0 when there is no error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { init as initLexer, parse as parseModule } from 'es-module-lexer';
import { glob } from 'tinyglobby';
import ts from 'typescript';
import YAML from 'yaml';

export const CONFIG_FILE = 'electron-builder.yml';

/** Native code that cannot be loaded from inside app.asar. */
export const NATIVE_MODULES = ['better-sqlite3', 'node-llama-cpp', 'keytar', 'sqlite-vec'] as const;

/** What each platform must produce (issue #13). */
export const REQUIRED_TARGETS: Record<'linux' | 'mac' | 'win', string[]> = {
  linux: ['AppImage', 'deb'],
  mac: ['dmg'],
  win: ['nsis'],
};

/** Fuses the packaged app must have, by @electron/fuses FuseV1Options name. */
export const REQUIRED_FUSES: Record<string, boolean> = {
  RunAsNode: false,
  EnableCookieEncryption: true,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
};

export const TRAY_ICONS = ['idle', 'working', 'needs-approval', 'paused'].map(
  (status) => `resources/tray/tray-${status}.png`,
);

export interface FileGroup {
  files: string[];
  bytes: number;
}

export interface DistReport {
  errors: string[];
  warnings: string[];
  notes: string[];
  electronVersion: string | null;
  /** Project files inside app.asar (node_modules listed separately). */
  app: FileGroup;
  /** Production packages copied into app.asar's node_modules. */
  dependencies: string[];
  /** Files electron-builder would leave in app.asar.unpacked. */
  unpacked: FileGroup;
  /** Extra resources (the bundled model). */
  extraResources: FileGroup;
  /** Prebuilt native packages installed here: those the installer takes, and those it leaves. */
  platformPackages: {
    shipped: Array<{ name: string; bytes: number }>;
    left: Array<{ name: string; bytes: number }>;
  };
}

/** A build target as electron-builder's macros name it (`${os}`: linux, mac, win). */
export interface Target {
  os: string;
  arch: string;
}

export function hostTarget(): Target {
  const os = { darwin: 'mac', win32: 'win' }[process.platform as string] ?? process.platform;
  const arch = process.arch === 'arm' ? 'armv7l' : process.arch;
  return { os, arch };
}

interface FileSet {
  from?: string;
  to?: string;
  filter?: string | string[];
}

type Config = Record<string, unknown> & {
  files?: Array<string | FileSet>;
  asarUnpack?: string | string[];
  extraResources?: Array<string | FileSet>;
  afterPack?: string | null;
  asar?: boolean;
  publish?: unknown;
  directories?: { output?: string; buildResources?: string };
};

export async function checkDistribution(
  projectDir: string,
  options: {
    requireBuild?: boolean;
    /** The builder config to check, relative to the project (default electron-builder.yml). */
    config?: string;
    /** The target whose native builds are counted (default this machine's). */
    target?: Target;
  } = {},
): Promise<DistReport> {
  const report: DistReport = {
    errors: [],
    warnings: [],
    notes: [],
    electronVersion: null,
    app: { files: [], bytes: 0 },
    dependencies: [],
    unpacked: { files: [], bytes: 0 },
    extraResources: { files: [], bytes: 0 },
    platformPackages: { shipped: [], left: [] },
  };
  const error = (message: string) => report.errors.push(message);
  const requireFromProject = createRequire(path.join(projectDir, 'package.json'));

  const pkgFile = path.join(projectDir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
    name?: string;
    main?: string;
    version?: string;
    description?: string;
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const production = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
  ]);

  // 1. The configuration, loaded (with what it extends) and validated by electron-builder's code.
  const configName = options.config ?? CONFIG_FILE;
  const configFile = path.join(projectDir, configName);
  if (!existsSync(configFile)) {
    error(`${configName} not found in ${projectDir}`);
    return report;
  }
  let config: Config;
  const builderConfig = requireFromProject('app-builder-lib/out/util/config/config') as {
    getConfig(projectDir: string, configPath: string): Promise<Config>;
    validateConfiguration(config: unknown, logger: { isEnabled: boolean }): Promise<void>;
  };
  try {
    YAML.parse(readFileSync(configFile, 'utf8'));
    config = await quietly(() => builderConfig.getConfig(projectDir, configFile));
    if (!config || typeof config !== 'object') throw new Error('not a mapping');
  } catch (cause) {
    error(`${configName}: cannot be parsed (${(cause as Error).message})`);
    return report;
  }
  try {
    // validateConfiguration normalises in place: give it a copy.
    await builderConfig.validateConfiguration(structuredClone(config), { isEnabled: false });
  } catch (cause) {
    error(
      `${configName} is invalid for electron-builder: ${schemaIssues((cause as Error).message)}`,
    );
  }

  // 2. Electron and the builder: electron-builder refuses electron in dependencies.
  if (pkg.dependencies?.electron) {
    error('package.json: "electron" must be in devDependencies (electron-builder refuses it)');
  }
  try {
    report.electronVersion = (
      requireFromProject('electron/package.json') as { version: string }
    ).version;
  } catch {
    error('electron is not installed: npm install');
  }
  for (const field of ['name', 'version', 'description', 'main'] as const) {
    if (!pkg[field]) error(`package.json: "${field}" is required to package`);
  }

  // 3. Targets per platform.
  for (const [platform, wanted] of Object.entries(REQUIRED_TARGETS)) {
    const section = config[platform] as { target?: unknown } | undefined;
    const targets = targetNames(section?.target);
    for (const target of wanted) {
      if (!targets.includes(target)) error(`${platform}.target must include ${target}`);
    }
  }

  // 4. Icons: electron-builder derives every platform's icon from one >= 512 px PNG.
  const buildResources = config.directories?.buildResources ?? 'build';
  for (const platform of Object.keys(REQUIRED_TARGETS)) {
    const icon = (config[platform] as { icon?: string } | undefined)?.icon;
    const file = path.join(projectDir, icon ?? path.join(buildResources, 'icon.png'));
    const size = pngSize(file);
    if (!size)
      error(`${platform}: icon ${path.relative(projectDir, file)} is missing or not a PNG`);
    else if (size.width < 512 || size.height < 512) {
      error(
        `${platform}: icon ${path.relative(projectDir, file)} is ${size.width}x${size.height}, needs 512x512`,
      );
    }
  }
  for (const icon of TRAY_ICONS) {
    if (!pngSize(path.join(projectDir, icon))) error(`tray icon ${icon} is missing or not a PNG`);
  }
  const entitlements = (config.mac as { entitlements?: string } | undefined)?.entitlements;
  if (entitlements && !existsSync(path.join(projectDir, entitlements))) {
    error(`mac.entitlements ${entitlements} does not exist`);
  }

  // 5. What goes into app.asar.
  if (config.asar === false) error('asar must stay on (ASAR integrity fuse)');
  const filePatterns = (config.files ?? []).flatMap((entry) =>
    typeof entry === 'string'
      ? [entry]
      : entry.from === undefined || entry.from === '.'
        ? asArray(entry.filter)
        : [],
  );
  if (filePatterns.length === 0)
    error('files: no patterns: electron-builder would package the whole project');
  const appFiles = await glob(
    filePatterns.filter((p) => !p.startsWith('!')),
    {
      cwd: projectDir,
      ignore: [
        ...filePatterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1)),
        'node_modules/**',
      ],
      dot: true,
    },
  );
  report.app = group(projectDir, appFiles);
  const main = pkg.main ?? '';
  if (main && !matchesAny(main, filePatterns, requireFromProject)) {
    error(`package.json main (${main}) is not matched by files: the packaged app would not start`);
  }
  for (const needed of ['models/catalog.json', 'resources/claw.yaml', ...TRAY_ICONS]) {
    if (!report.app.files.includes(needed))
      error(`files: ${needed} is not packaged (the app reads it)`);
  }
  if (report.app.files.some((file) => file.endsWith('.gguf'))) {
    error('files: a .gguf model would go inside app.asar; bundle models through extraResources');
  }
  if (options.requireBuild !== false) {
    if (!existsSync(path.join(projectDir, main))) {
      error(`${main} does not exist: run npm run build first`);
    } else {
      await checkImports(projectDir, path.dirname(path.join(projectDir, main)), production, report);
    }
  }

  // 6. Production dependencies and the native ones left outside the archive.
  report.dependencies = productionPackages(projectDir);
  const unpackPatterns = asArray(config.asarUnpack);
  const unpacked: string[] = [];
  for (const name of NATIVE_MODULES) {
    if (!production.has(name)) {
      error(`${name} is native and must be a production dependency`);
      continue;
    }
    const dir = path.join(projectDir, 'node_modules', name);
    if (!existsSync(dir)) {
      const optional = Boolean(pkg.optionalDependencies?.[name]);
      (optional ? report.warnings : report.errors).push(
        `${name} is not installed here${optional ? ' (optional: the build machine needs it, e.g. libsecret for keytar)' : ''}`,
      );
      continue;
    }
    const files = await glob('**', { cwd: dir, dot: true });
    const relative = files.map((file) => `node_modules/${name}/${file}`);
    const matched = relative.filter((file) => matchesAny(file, unpackPatterns, requireFromProject));
    if (matched.length === 0)
      error(`asarUnpack does not unpack ${name}: it cannot load from app.asar`);
    unpacked.push(...matched);
  }
  // Platform packages holding prebuilt binaries (e.g. @node-llama-cpp/linux-x64, sqlite-vec-linux-x64):
  // npm installs every build its packages declare for this machine; the installer takes those the
  // node_modules patterns of `files` keep for the target (electron-builder keeps what no exclude
  // matches, after expanding ${os} and ${arch}).
  const target = options.target ?? hostTarget();
  const moduleFilter = [
    '**/*',
    ...filePatterns.filter((p) => p.startsWith('!') || p.includes('node_modules/')),
  ].map((pattern) =>
    pattern.replace(/\$\{(os|arch)\}/g, (_, macro: 'os' | 'arch') => target[macro]),
  );
  const platformPackages = await glob(
    ['node_modules/@node-llama-cpp/*', 'node_modules/sqlite-vec-*'],
    {
      cwd: projectDir,
      onlyDirectories: true,
    },
  );
  for (const dir of platformPackages.map((d) => d.replace(/\/$/, ''))) {
    const name = dir.slice('node_modules/'.length);
    const files = (await glob('**', { cwd: path.join(projectDir, dir), dot: true })).map(
      (file) => `${dir}/${file}`,
    );
    const shipped = files.filter((file) => matchesAny(file, moduleFilter, requireFromProject));
    const bytes = group(projectDir, files).bytes;
    if (shipped.length === 0) {
      report.platformPackages.left.push({ name, bytes });
      continue;
    }
    report.platformPackages.shipped.push({ name, bytes: group(projectDir, shipped).bytes });
    const probe = `${dir}/package.json`;
    if (!matchesAny(probe, unpackPatterns, requireFromProject)) {
      error(`asarUnpack does not unpack ${name}: its binaries cannot load from app.asar`);
    }
    unpacked.push(...shipped);
  }
  const llamaBuilds = report.platformPackages.shipped.filter((p) =>
    p.name.startsWith('@node-llama-cpp/'),
  );
  const installedBuilds = platformPackages.some((dir) => dir.includes('@node-llama-cpp/'));
  if (
    installedBuilds &&
    !llamaBuilds.some((p) => p.name === `@node-llama-cpp/${target.os}-${target.arch}`)
  ) {
    error(
      `files leaves out @node-llama-cpp/${target.os}-${target.arch}: the local model could not run on ${target.os} ${target.arch}`,
    );
  }
  report.unpacked = group(projectDir, unpacked);

  // 7. The bundled model as an extra resource.
  const extra = (config.extraResources ?? []).find(
    (entry): entry is FileSet => typeof entry === 'object' && entry.to === 'models',
  );
  const ggufFilter = asArray(extra?.filter).some((filter) => filter.endsWith('.gguf'));
  if (!extra || !ggufFilter) {
    error('extraResources must copy models/*.gguf to models (the bundled local model)');
  } else {
    const from = extra.from ?? '.';
    const models = await glob(asArray(extra.filter), { cwd: path.join(projectDir, from) });
    report.extraResources = group(
      projectDir,
      models.map((file) => path.join(from, file)),
    );
    if (models.length === 0) {
      report.notes.push(
        'no models/*.gguf here: the installers ship without a bundled model (pincer models pull downloads one)',
      );
    }
  }

  // 8. Fuses, through the very hook electron-builder runs.
  checkAfterPack(projectDir, config.afterPack, requireFromProject, report);

  // 9. Updates: nothing published, the app's updater stays off without a feed.
  if (config.publish !== null && config.publish !== undefined) {
    report.notes.push('publish is configured: builds will carry an update feed');
  } else {
    report.notes.push(
      'publish: null: auto-update is off unless PINCER_UPDATE_FEED or the settings name a feed',
    );
  }
  report.notes.push(
    `npm run dist downloads Electron ${report.electronVersion ?? '?'} for the target and rebuilds better-sqlite3 against Electron's headers: it needs internet`,
  );
  return report;
}

function checkAfterPack(
  projectDir: string,
  hook: string | null | undefined,
  requireFromProject: NodeJS.Require,
  report: DistReport,
): void {
  if (!hook) {
    report.errors.push('afterPack is not set: the fuses would not be flipped');
    return;
  }
  const file = path.resolve(projectDir, hook);
  if (!existsSync(file)) {
    report.errors.push(`afterPack hook ${hook} does not exist`);
    return;
  }
  let module: { default?: unknown; FUSES?: Record<string, boolean> };
  try {
    module = requireFromProject(file) as typeof module;
  } catch (cause) {
    report.errors.push(`afterPack hook ${hook} cannot be loaded: ${(cause as Error).message}`);
    return;
  }
  if (typeof module.default !== 'function') {
    report.errors.push(`afterPack hook ${hook} exports no function`);
  }
  let known: Record<string, unknown> = {};
  try {
    known = (requireFromProject('@electron/fuses') as { FuseV1Options: Record<string, unknown> })
      .FuseV1Options;
  } catch {
    report.errors.push('@electron/fuses is not installed: npm install');
  }
  const fuses = module.FUSES ?? {};
  for (const name of Object.keys(fuses)) {
    if (!(name in known)) report.errors.push(`afterPack: unknown fuse ${name}`);
  }
  for (const [name, wanted] of Object.entries(REQUIRED_FUSES)) {
    if (fuses[name] !== wanted) {
      report.errors.push(`afterPack: fuse ${name} must be ${wanted ? 'on' : 'off'}`);
    }
  }
}

/**
 * Every package the built main process loads must ship (be a production dependency). Its files
 * are read with real parsers, not patterns (text in a string is not an import): es-module-lexer
 * for static and dynamic imports, the TypeScript parser for `require("...")` calls through
 * `require`, the bundler's `__require`, or a function made by `createRequire`.
 */
export async function checkImports(
  projectDir: string,
  mainDir: string,
  production: Set<string>,
  report: DistReport,
): Promise<void> {
  const files = await glob('**/*.{js,mjs,cjs}', { cwd: mainDir, absolute: true });
  for (const file of files.sort()) {
    const shown = path.relative(projectDir, file).split(path.sep).join('/');
    for (const specifier of await bundleImports(file)) {
      if (specifier.startsWith('node:') || specifier === 'electron') continue;
      if (specifier.startsWith('.') || specifier.startsWith('/') || /^[a-z]+:/.test(specifier))
        continue;
      const name = specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : (specifier.split('/')[0] as string);
      if (BUILTIN_MODULES.has(name)) continue;
      if (!production.has(name)) {
        report.errors.push(
          `${shown} imports "${specifier}" but ${name} is not a production dependency: the packaged app would fail`,
        );
      }
    }
  }
}

/** The module specifiers one built file loads: imports, literal dynamic imports, requires. */
export async function bundleImports(file: string): Promise<Set<string>> {
  const source = readFileSync(file, 'utf8');
  const specifiers = new Set<string>();
  await initLexer;
  try {
    const [imports] = parseModule(source);
    for (const use of imports) if (use.n !== undefined) specifiers.add(use.n);
  } catch (cause) {
    throw new Error(
      `${file} is not a module es-module-lexer can read: ${(cause as Error).message}`,
    );
  }
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const requirers = new Set(['require', '__require']);
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      ts.isCallExpression(node.initializer) &&
      /(^|\.)createRequire$/.test(node.initializer.expression.getText(tree))
    ) {
      requirers.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  const calls = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      requirers.has(node.expression.text) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifiers.add(node.arguments[0].text);
    }
    ts.forEachChild(node, calls);
  };
  calls(tree);
  return specifiers;
}

const BUILTIN_MODULES = new Set(
  createRequire(import.meta.url)('node:module').builtinModules as string[],
);

/** The installed packages that are not dev-only, from the lockfile (what electron-builder copies). */
function productionPackages(projectDir: string): string[] {
  const lockFile = path.join(projectDir, 'package-lock.json');
  if (!existsSync(lockFile)) return [];
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as {
    packages?: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  return Object.entries(lock.packages ?? {})
    .filter(([key, info]) => key.startsWith('node_modules/') && !info.dev && !info.devOptional)
    .map(([key]) => key)
    .filter((key) => existsSync(path.join(projectDir, key)))
    .map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();
}

function matchesAny(file: string, patterns: string[], requireFromProject: NodeJS.Require): boolean {
  // electron-builder matches with minimatch; use the very copy it loads.
  const builderRequire = createRequire(requireFromProject.resolve('app-builder-lib'));
  const { minimatch } = builderRequire('minimatch') as {
    minimatch: (path: string, pattern: string, options?: { dot?: boolean }) => boolean;
  };
  let included = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (minimatch(file, pattern.slice(1), { dot: true })) included = false;
    } else if (minimatch(file, pattern, { dot: true })) {
      included = true;
    }
  }
  return included;
}

/** electron-builder logs each configuration it loads; a check has no use for those lines. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
}

function targetNames(target: unknown): string[] {
  const entries: unknown[] = Array.isArray(target) ? target : target ? [target] : [];
  return entries.map((entry) =>
    typeof entry === 'string' ? entry : String((entry as { target?: unknown }).target),
  );
}

function asArray<T>(value: T | T[] | null | undefined): T[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function group(projectDir: string, files: string[]): FileGroup {
  const sorted = [...new Set(files)].sort();
  const bytes = sorted.reduce((sum, file) => sum + statSync(path.join(projectDir, file)).size, 0);
  return { files: sorted, bytes };
}

/** Width and height from a PNG's IHDR, or null when the file is not a PNG. */
export function pngSize(file: string): { width: number; height: number } | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  const signature = '89504e470d0a1a0a';
  if (bytes.length < 24 || bytes.subarray(0, 8).toString('hex') !== signature) return null;
  if (bytes.subarray(12, 16).toString('ascii') !== 'IHDR') return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** electron-builder's schema errors list each problem on a " - " line; keep just those. */
function schemaIssues(text: string): string {
  const issues = text
    .split('\n')
    .filter((line) => /^\s*- /.test(line))
    .map((line) => line.trim().slice(2));
  return issues.length > 0 ? issues.join('; ') : (text.split('\n')[0] ?? text);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function formatReport(report: DistReport): string {
  const lines = [
    `electron-builder config: ${CONFIG_FILE} (Electron ${report.electronVersion ?? 'not installed'})`,
    `app.asar: ${report.app.files.length} project files (${megabytes(report.app.bytes)}) + ${report.dependencies.length} production packages`,
    ...report.app.files.map((file) => `  ${file}`),
    `app.asar.unpacked: ${report.unpacked.files.length} files (${megabytes(report.unpacked.bytes)}) from ${NATIVE_MODULES.join(', ')}`,
    ...report.platformPackages.shipped.map((p) => `  ships ${p.name} (${megabytes(p.bytes)})`),
    ...report.platformPackages.left.map(
      (p) => `  leaves out ${p.name} (${megabytes(p.bytes)}): installed here, not for this target`,
    ),
    `extra resources: ${report.extraResources.files.length} files (${megabytes(report.extraResources.bytes)})`,
    ...report.extraResources.files.map((file) => `  ${file}`),
    ...report.notes.map((note) => `note: ${note}`),
    ...report.warnings.map((warning) => `warning: ${warning}`),
    ...report.errors.map((message) => `error: ${message}`),
    report.errors.length === 0
      ? 'dist:check passed'
      : `dist:check failed: ${report.errors.length} error(s)`,
  ];
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const projectIndex = argv.indexOf('--project');
  const projectDir = path.resolve(
    projectIndex >= 0 ? (argv[projectIndex + 1] ?? '.') : path.join(import.meta.dirname, '..'),
  );
  const option = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const host = hostTarget();
  const report = await checkDistribution(projectDir, {
    requireBuild: !argv.includes('--no-build'),
    config: option('--config'),
    target: { os: host.os, arch: option('--arch') ?? host.arch },
  });
  console.log(argv.includes('--json') ? JSON.stringify(report, null, 2) : formatReport(report));
  return report.errors.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (cause: unknown) => {
      console.error(`dist:check crashed: ${cause instanceof Error ? cause.stack : String(cause)}`);
      process.exit(2);
    },
  );
}
