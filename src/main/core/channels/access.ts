/**
 * Who may talk to the agent through a channel, exactly as the manifest declares it (CKP §5.3):
 * `open` only when declared, `allowlist` by platform id, `pairing` by a code the owner approves,
 * `role-based` with admin/user/viewer. A channel that declares no access control lets no one in.
 */
import type { ChannelRecords } from './records.js';
import type { ChannelDecl, Role } from './types.js';

export type AccessDecision =
  | { kind: 'allowed'; role: Role }
  | { kind: 'pairing'; code: string; expiresAt: string; fresh: boolean }
  | { kind: 'refused'; reason: string };

export class ChannelAccess {
  constructor(
    private readonly decl: ChannelDecl,
    private readonly records: ChannelRecords,
  ) {}

  decide(userId: string, now = new Date()): AccessDecision {
    const access = this.decl.spec.access_control;
    if (!access) {
      return {
        kind: 'refused',
        reason: `channel "${this.decl.name}" declares no access_control: nobody is let in`,
      };
    }
    switch (access.mode) {
      case 'open':
        return { kind: 'allowed', role: 'user' };
      case 'allowlist':
        // The ids the owner wrote into the manifest: the owner's own accounts.
        return (access.allowed_ids ?? []).includes(userId)
          ? { kind: 'allowed', role: 'admin' }
          : { kind: 'refused', reason: "not on this channel's allowlist" };
      case 'role-based': {
        const role = access.roles?.find((entry) => entry.id === userId)?.role;
        return role
          ? { kind: 'allowed', role }
          : { kind: 'refused', reason: 'no role on this channel' };
      }
      case 'pairing': {
        const rules = access.pairing ?? { code_expiry_minutes: 30, max_pending: 10 };
        const asked = this.records.askPairing(
          this.decl.name,
          userId,
          { expiryMinutes: rules.code_expiry_minutes, maxPending: rules.max_pending },
          now,
        );
        if (asked.kind === 'approved') return { kind: 'allowed', role: 'user' };
        if (asked.kind === 'full') {
          return { kind: 'refused', reason: 'too many pairing requests are waiting; try later' };
        }
        return {
          kind: 'pairing',
          code: asked.code,
          expiresAt: asked.expiresAt,
          fresh: asked.fresh,
        };
      }
    }
  }

  /** Platform ids that may answer approvals and approve pairings from a chat. */
  admins(): string[] {
    const access = this.decl.spec.access_control;
    if (access?.mode === 'allowlist') return access.allowed_ids ?? [];
    if (access?.mode === 'role-based') {
      return (access.roles ?? [])
        .filter((entry) => entry.role === 'admin')
        .map((entry) => entry.id);
    }
    return [];
  }
}
