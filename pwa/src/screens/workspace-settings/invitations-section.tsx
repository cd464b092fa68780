import { useId, useState, type FormEvent } from 'react';
import { Link2, Mail, Trash2 } from 'lucide-react';
import {
  createInvitationRequestSchema,
  limits,
  type CreatedInvitationResponse,
  type Invitation,
  type InvitationStatus,
} from '@office/sync-protocol';
import { createInvitationRequest, invitationLink, revokeInvitationRequest } from '../../api/access-api';
import { serverMessageOr } from '../../api/http';
import { Button } from '../../components/button';
import { CopyButton } from '../../components/copy-button';
import { FormAlert } from '../../components/form-alert';
import type { Flash } from '../../components/use-flash';
import { formatTimestamp } from '../tasks/task-format';
import styles from './workspace-settings.module.css';

/** How many people one link may admit, as the form offers it. */
const useChoices = [1, 5, 10, 25] as const;

const statusLabels: Record<InvitationStatus, string> = {
  open: 'Open',
  used: 'Used',
  expired: 'Expired',
  revoked: 'Withdrawn',
};

const CREATE_FAILED = 'Could not create the invitation. Please try again.';
const REVOKE_FAILED = 'Could not withdraw the invitation. Please try again.';

/** "Used 1 of 5" and when it expires (or expired). */
function invitationLine(invitation: Invitation): string {
  const uses = `Used ${invitation.uses} of ${invitation.maxUses}`;
  const expiry = `${invitation.status === 'expired' ? 'expired' : 'expires'} ${formatTimestamp(invitation.expiresAt)}`;
  const maker = invitation.createdBy ? ` · by ${invitation.createdBy.name}` : '';
  return `${uses} · ${expiry}${maker}`;
}

interface InvitationsSectionProps {
  invitations: Invitation[];
  online: boolean;
  onChanged: () => void;
  onFlash: (flash: Flash) => void;
}

/** Invitation links: made here (the link is shown once), listed with their state, withdrawn while open. */
export function InvitationsSection({ invitations, online, onChanged, onFlash }: InvitationsSectionProps) {
  const titleId = useId();
  const emailId = useId();
  const usesId = useId();
  const [email, setEmail] = useState('');
  const [maxUses, setMaxUses] = useState<number>(1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedInvitationResponse | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const forOne = email.trim() !== '';

  const handleCreate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy || !online) return;
    const request = { email: email.trim(), maxUses: forOne ? 1 : maxUses };
    const checked = createInvitationRequestSchema.safeParse(request);
    if (!checked.success) {
      setError(checked.error.issues[0]?.message ?? CREATE_FAILED);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      setCreated(await createInvitationRequest(request));
      setEmail('');
      setMaxUses(1);
      onChanged();
    } catch (failure) {
      setError(serverMessageOr(failure, CREATE_FAILED));
    } finally {
      setBusy(false);
    }
  };

  const handleRevoke = async (invitation: Invitation) => {
    setRevoking(invitation.id);
    try {
      const answer = await revokeInvitationRequest(invitation.id);
      onFlash({ kind: 'success', text: answer.message });
      if (created?.invitation.id === invitation.id) setCreated(null);
      onChanged();
    } catch (failure) {
      onFlash({ kind: 'error', text: serverMessageOr(failure, REVOKE_FAILED) });
    } finally {
      setRevoking(null);
    }
  };

  const link = created ? invitationLink(created.token) : null;

  return (
    <section className={styles.card} aria-labelledby={titleId}>
      <div className={styles.cardHeader}>
        <h2 id={titleId} className={styles.cardTitle}>
          Invitations
        </h2>
        <p className={styles.muted}>Links that let people sign up, for {limits.invitationTtlDays} days.</p>
      </div>

      <form className={styles.inviteForm} onSubmit={(event) => void handleCreate(event)} noValidate>
        <div className={styles.field}>
          <label className={styles.fieldLabel} htmlFor={emailId}>
            Email (optional)
          </label>
          <input
            id={emailId}
            className={styles.input}
            type="email"
            inputMode="email"
            autoComplete="off"
            placeholder="Anyone with the link"
            value={email}
            maxLength={limits.emailMaxLength}
            onChange={(event) => setEmail(event.target.value)}
            disabled={!online}
          />
        </div>
        <div className={styles.field}>
          <label className={styles.fieldLabel} htmlFor={usesId}>
            Can be used by
          </label>
          <select
            id={usesId}
            className={styles.select}
            value={forOne ? 1 : maxUses}
            onChange={(event) => setMaxUses(Number(event.target.value))}
            disabled={!online || forOne}
          >
            {useChoices.map((count) => (
              <option key={count} value={count}>
                {count === 1 ? '1 person' : `Up to ${count} people`}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" busy={busy} disabled={!online}>
          <Link2 size={16} aria-hidden="true" />
          {busy ? 'Creating...' : 'Create invitation link'}
        </Button>
      </form>
      {error !== null && <FormAlert message={error} />}

      {created !== null && link !== null && (
        <div className={styles.newLink} role="status">
          <p className={styles.newLinkTitle}>
            {created.invitation.email === null
              ? 'Invitation link created'
              : `Invitation link for ${created.invitation.email} created`}
          </p>
          <p className={styles.muted}>Copy it now: it is shown only once. Send it to whom it is for.</p>
          <div className={styles.linkRow}>
            <input
              className={`${styles.input} ${styles.linkInput}`}
              value={link}
              readOnly
              aria-label="Invitation link"
              onFocus={(event) => event.target.select()}
            />
            <CopyButton text={link} label="Copy link" />
          </div>
          <div className={styles.actions}>
            <Button variant="secondary" size="small" onClick={() => setCreated(null)}>
              Done
            </Button>
          </div>
        </div>
      )}

      {invitations.length === 0 ? (
        <p className={styles.muted}>No invitations yet.</p>
      ) : (
        <ul className={styles.invitations} aria-label="Invitations">
          {invitations.map((invitation) => (
            <li key={invitation.id} className={styles.invitation}>
              <span className={styles.invitationIcon} aria-hidden="true">
                {invitation.email === null ? <Link2 size={16} /> : <Mail size={16} />}
              </span>
              <div className={styles.invitationText}>
                <p className={styles.invitationWho}>{invitation.email ?? 'Anyone with the link'}</p>
                <p className={styles.muted}>{invitationLine(invitation)}</p>
              </div>
              <span className={`${styles.status} ${styles[`status-${invitation.status}`]}`}>
                {statusLabels[invitation.status]}
              </span>
              {invitation.status === 'open' && (
                <Button
                  variant="secondary"
                  size="small"
                  busy={revoking === invitation.id}
                  disabled={!online}
                  aria-label={`Withdraw the invitation for ${invitation.email ?? 'anyone with the link'}`}
                  onClick={() => void handleRevoke(invitation)}
                >
                  <Trash2 size={16} aria-hidden="true" />
                  Withdraw
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
