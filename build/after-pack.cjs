// electron-builder afterPack hook: flips Electron's fuses in the packaged binary before it is
// signed. CommonJS because electron-builder requires hooks and @electron/fuses 1.x is CommonJS.
const path = require('node:path');
const { flipFuses, FuseV1Options, FuseVersion } = require('@electron/fuses');

/** Fuse name (FuseV1Options key) -> state. Checked by `npm run dist:check` and its test. */
const FUSES = {
  // `ELECTRON_RUN_AS_NODE=1 Pincer` must not turn the app into a plain Node interpreter
  // (except on the platforms below).
  RunAsNode: false,
  // Cookies on disk encrypted with the OS key store.
  EnableCookieEncryption: true,
  // No NODE_OPTIONS / --inspect to inject code into the main process.
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  // ASAR integrity: the app loads only from app.asar, whose hash is checked at startup
  // (macOS and Windows; electron-builder embeds the hash).
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
};

/**
 * Platforms whose tool workers run on the app's own binary in Node mode. On Linux each JS tool
 * worker is confined by bubblewrap, and the only Node a packaged app has is Electron itself
 * (Electron's alternative, utilityProcess, cannot be started inside bubblewrap). The fuse
 * protects little there: the Secret Service answers every program of the user alike, so Node
 * mode opens no secret another local program could not read. On macOS the keychain trusts the
 * app's signature, so Node mode would hand Pincer's keys to any local program, and on Windows a
 * signed binary that runs any script is a known allow-list bypass: the fuse stays off there.
 */
const NODE_MODE_PLATFORMS = new Set(['linux']);

/** The fuses for one packaged platform (electron-builder's platform name). */
function fusesFor(platform) {
  return { ...FUSES, RunAsNode: NODE_MODE_PLATFORMS.has(platform) };
}

/** The file holding the fuse wire for one packaged platform. */
function electronBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
    case 'win32':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
    default:
      return path.join(appOutDir, packager.executableName);
  }
}

async function afterPack(context) {
  const config = { version: FuseVersion.V1 };
  for (const [name, enabled] of Object.entries(fusesFor(context.electronPlatformName))) {
    const option = FuseV1Options[name];
    if (option === undefined) throw new Error(`after-pack: unknown Electron fuse "${name}"`);
    config[option] = enabled;
  }
  // An arm64 macOS binary carries an ad-hoc signature that flipping invalidates.
  const arm64 = context.arch === 3; // builder-util Arch.arm64
  config.resetAdHocDarwinSignature = context.electronPlatformName === 'darwin' && arm64;
  await flipFuses(electronBinary(context), config);
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.FUSES = FUSES;
module.exports.fusesFor = fusesFor;
module.exports.electronBinary = electronBinary;
