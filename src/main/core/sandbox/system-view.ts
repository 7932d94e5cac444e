/**
 * What of the host a confined tool sees besides its grants: the system folders programs need,
 * read-only, and nothing else. The user's home, Pincer's data dir, /root, /home, /var, /run
 * and /opt are simply not there, so a credential file nobody thought to deny stays hidden.
 * Read from the host once per sandbox; the argv builders (bwrap.ts, seatbelt.ts) stay pure.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** A host path shown read-only at the same place, or a symlink recreated as it is. */
export interface ViewEntry {
  path: string;
  /** Set for a symlink: its target text (`usr/bin` for /bin on a merged-/usr system). */
  link?: string;
}

/** Linux: programs, libraries and the loader's files. /nix/store for NixOS. */
const LINUX_ROOTS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/nix/store',
  '/run/current-system',
];

/**
 * The /etc entries programs read (users and groups by id, name resolution, time zone, locale,
 * loader cache, CA certificates, Debian's alternatives that /usr/bin links go through, shells'
 * and common tools' system defaults). A trailing `*` matches a name prefix. Not here: shadow
 * files, sudoers, SSH host keys, ssl/private, NetworkManager and wpa_supplicant secrets, npmrc
 * and pip.conf (registry tokens), machine-id. A grant (`mount_paths`) adds what a tool needs.
 */
export const ETC_ALLOWED = [
  'alternatives',
  'bash.bashrc',
  'bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'crypto-policies',
  'debian_version',
  'fonts',
  'gai.conf',
  'gitconfig',
  'group',
  'host.conf',
  'hosts',
  'inputrc',
  'java-*',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'locale.conf',
  'locale.gen',
  'localtime',
  'lsb-release',
  'magic',
  'magic.mime',
  'man_db.conf',
  'manpath.config',
  'mime.types',
  'mtab',
  'nanorc',
  'networks',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'perl',
  'pki/ca-trust',
  'pki/tls/certs',
  'pki/tls/openssl.cnf',
  'profile',
  'profile.d',
  'protocols',
  'python3*',
  'redhat-release',
  'resolv.conf',
  'rpc',
  'services',
  'sgml',
  'shells',
  'ssl/certs',
  'ssl/openssl.cnf',
  'system-release',
  'terminfo',
  'timezone',
  'vim',
  'wgetrc',
  'xml',
  'zsh',
  'zshenv',
  'zshrc',
];

/** macOS: the system volume, the shared libraries' home and Homebrew. */
const DARWIN_ROOTS = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var/db/timezone',
  '/opt/homebrew',
  '/dev',
];

/** Where the sandbox mounts its own: a host target under these is never bound. */
const SANDBOX_OWN = ['/proc', '/dev', '/tmp', '/sys'];

function inside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function etcEntries(etc: string): string[] {
  let names: string[];
  try {
    names = readdirSync(etc);
  } catch {
    return [];
  }
  return ETC_ALLOWED.flatMap((allowed) => {
    if (allowed.endsWith('*'))
      return names.filter((n) => n.startsWith(allowed.slice(0, -1))).map((n) => path.join(etc, n));
    return [path.join(etc, allowed)];
  });
}

/**
 * The folder of the Node binary that runs the workers (and `node` in commands): the whole
 * prefix when it is a Node installation (npm and npx with it), else the binary's own folder
 * (Electron keeps its libraries next to it).
 */
export function nodeInstallation(execPath = process.execPath): string {
  const binary = realpathSync(execPath);
  const dir = path.dirname(binary);
  const prefix = path.dirname(dir);
  const isPrefix =
    path.basename(dir) === 'bin' &&
    (existsSync(path.join(prefix, 'include', 'node')) ||
      existsSync(path.join(prefix, 'lib', 'node_modules')));
  return isPrefix ? prefix : dir;
}

/** Drops paths inside another of the list (and repeats): binding the outer one shows them. */
export function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  // Each path's ancestors are looked up, not compared with every other path: the view of /etc
  // alone has a few hundred entries, and the pairwise check cost tens of ms at every start.
  const present = new Set(unique.map((p) => path.resolve(p)));
  return unique.filter((p) => {
    for (let dir = path.resolve(p); ; ) {
      const up = path.dirname(dir);
      if (up === dir) return true;
      if (present.has(up)) return false;
      dir = up;
    }
  });
}

function lstatOrNothing(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Turns candidate paths into view entries: missing ones dropped, symlinks recreated (with their
 * real target shown too unless it is the sandbox's own /proc, /dev or /tmp), anything inside a
 * shown folder left to that folder.
 */
export function viewOf(candidates: readonly string[]): ViewEntry[] {
  const binds: string[] = [];
  const links: ViewEntry[] = [];
  for (const candidate of candidates) {
    const info = lstatOrNothing(candidate);
    if (!info) continue;
    if (!info.isSymbolicLink()) {
      binds.push(candidate);
      continue;
    }
    links.push({ path: candidate, link: readlinkSync(candidate) });
    try {
      const target = realpathSync(candidate);
      if (!SANDBOX_OWN.some((own) => inside(own, target))) binds.push(target);
    } catch {
      // A dangling link shows as one.
    }
  }
  const shown = outermost(binds);
  const covered = (entry: ViewEntry) => shown.some((p) => inside(p, entry.path));
  return [...shown.map((p) => ({ path: p })), ...links.filter((link) => !covered(link))];
}

/** The read-only system view for this platform, plus the Node installation. */
export function systemView(platform: NodeJS.Platform = process.platform): ViewEntry[] {
  const roots = platform === 'darwin' ? DARWIN_ROOTS : [...LINUX_ROOTS, ...etcEntries('/etc')];
  return viewOf([...roots, nodeInstallation()]);
}

/**
 * The installation a worker script belongs to: the nearest folder holding node_modules (the
 * worker imports its tools and their packages from there), else the script's own folder. Real
 * paths, with node_modules and linked packages that live elsewhere (a symlinked node_modules,
 * `npm link`) added, so the imports resolve inside the sandbox too. An installation under /tmp
 * would otherwise vanish behind the private /tmp.
 */
export function installationView(file: string): string[] {
  let dir = path.dirname(file);
  while (!existsSync(path.join(dir, 'node_modules'))) {
    // No installation around it (or no such script: the worker then fails to start, loudly).
    if (path.dirname(dir) === dir) return realPaths([path.dirname(file)]);
    dir = path.dirname(dir);
  }
  const modules = realPaths([path.join(dir, 'node_modules')]);
  const linked = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.name.startsWith('@') && entry.isDirectory()) return linked(full);
      return entry.isSymbolicLink() ? realPaths([full]) : [];
    });
  return outermost([...realPaths([dir]), ...modules, ...modules.flatMap(linked)]);
}

/** Real paths of those that exist. */
function realPaths(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    try {
      return [realpathSync(p)];
    } catch {
      return [];
    }
  });
}
