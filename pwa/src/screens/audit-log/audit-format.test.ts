import { describe, expect, test } from 'vitest';
import { auditActions, type AuditRecord } from '@office/sync-protocol';
import { auditActionLabels, auditActorText, auditDetails, auditPersonOptions } from './audit-format';

const record = (overrides: Partial<AuditRecord>): AuditRecord => ({
  id: '0190a5c0-0000-7000-8000-000000000001',
  at: '2026-01-01T09:00:00.000Z',
  action: 'sign_in',
  actorId: null,
  actorName: null,
  targetId: null,
  targetName: null,
  ip: null,
  details: {},
  ...overrides,
});

describe('audit log texts', () => {
  test('every kind of record has its own readable label', () => {
    const labels = auditActions.map((action) => auditActionLabels[action]);
    expect(new Set(labels).size).toBe(auditActions.length);
    for (const label of labels) expect(label).toMatch(/^[A-Z][a-z -]+$/);
  });

  test("a record's details read as labels in a fixed order, without ids", () => {
    expect(
      auditDetails(
        record({
          action: 'sign_in_failed',
          details: { reason: 'wrong password', email: 'a@example.com', method: 'password' },
        }),
      ),
    ).toEqual([
      { label: 'Email', value: 'a@example.com' },
      { label: 'Method', value: 'password' },
      { label: 'Reason', value: 'wrong password' },
    ]);
    expect(
      auditDetails(record({ action: 'signup_policy_changed', details: { policy: 'domains', domains: 'example.org' } })),
    ).toEqual([
      { label: 'Setting', value: 'Listed email domains only' },
      { label: 'Domains', value: 'example.org' },
    ]);
    expect(
      auditDetails(record({ action: 'invitation_accepted', details: { invitation: 'x', invitedBy: 'Mia' } })),
    ).toEqual([{ label: 'Invited by', value: 'Mia' }]);
  });

  test('a refused sign-in was made by nobody signed in', () => {
    expect(auditActorText(record({ action: 'sign_in_failed' }))).toBe('Not signed in');
    expect(auditActorText(record({ actorName: 'Alice' }))).toBe('Alice');
  });

  test('the person filter offers the directory, then people the records name who left, and the one chosen', () => {
    const directory = [
      { id: 'u-maya', name: 'Maya' },
      { id: 'u-alice', name: 'Alice' },
    ];
    const shown = [
      record({ actorId: 'u-maya', actorName: 'Maya', targetId: 'u-gone', targetName: 'Gone Person' }),
      record({ actorId: 'u-gone', actorName: 'Gone Person' }),
    ];
    expect(auditPersonOptions(directory, shown, null).map((option) => option.label)).toEqual([
      'Maya',
      'Alice',
      'Gone Person (no longer here)',
    ]);
    expect(auditPersonOptions(directory, [], { id: 'u-gone', name: 'Gone Person' })).toEqual([
      { id: 'u-maya', name: 'Maya', label: 'Maya' },
      { id: 'u-alice', name: 'Alice', label: 'Alice' },
      { id: 'u-gone', name: 'Gone Person', label: 'Gone Person (no longer here)' },
    ]);
  });
});
