/** The network module's public surface: what other modules import. */
export { isPrivateAddress } from './address.js';
export { grantCoversAddress, grantMatchesHost, parseHostGrant } from './host-grant.js';
export { decodePathSegment, loopbackOrigin, requestPathname } from './request-path.js';
