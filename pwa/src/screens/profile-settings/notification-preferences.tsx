import { useId, useState } from 'react';
import {
  preferenceTexts,
  type NotificationPreferences,
  type QuietHours,
  type TeamChatNoticeLevel,
} from '@office/sync-protocol';
import { browserTimeZone } from '../../realtime/socket';
import { useMutate } from '../../data/hooks';
import { useNotificationPreferences } from '../../data/notification-hooks';
import { SwitchRow } from './switch-row';
import styles from './notification-preferences.module.css';

/** What the preferences say on screen. */
export const preferenceLabels = {
  teamChat: 'Team chat',
  teamChatHint: 'Which team chat messages show in your notifications and are pushed.',
  teamChatLevels: { all: 'Every message', mentions: 'Mentions only', none: 'None' } satisfies Record<
    TeamChatNoticeLevel,
    string
  >,
  directMessages: 'Direct messages',
  directMessagesHint: 'A notification for each direct message you receive.',
  taskNotices: 'Task notices',
  taskNoticesHint: 'Assignments, changes and comments on your tasks, and due-soon and overdue reminders.',
  morningDigest: 'Morning digest',
  morningDigestHint: '“Your day” at 08:00: your overdue tasks and those due today, in one notification.',
  quietHours: 'Quiet hours',
  quietHoursHint: 'No push notifications between these times; they still wait in the bell.',
  from: 'From',
  to: 'To',
  timeZone: (zone: string) => `Times are in your time zone, ${zone}.`,
} as const;

/** Quiet hours offered when the switch is first turned on. */
const defaultQuietHours: QuietHours = { from: '22:00', to: '07:00' };

/**
 * The person's notification preferences (issue 18). Each change is a queued write like any other: it applies
 * on this device at once, offline too, and reaches the server and the person's other devices when it can.
 */
export function NotificationPreferencesForm() {
  const preferences = useNotificationPreferences();
  const mutate = useMutate();
  if (!preferences) return null;
  const set = (changes: Partial<Omit<NotificationPreferences, 'id' | '_id' | 'version' | 'timeZone'>>) =>
    void mutate('notification.setPreferences', changes);

  return (
    <div className={styles.preferences}>
      <TeamChatChoice value={preferences.teamChat} onChange={(teamChat) => set({ teamChat })} />
      <SwitchRow
        id="direct-notices"
        label={preferenceLabels.directMessages}
        hint={preferenceLabels.directMessagesHint}
        checked={preferences.directMessages}
        onToggle={() => set({ directMessages: !preferences.directMessages })}
      />
      <SwitchRow
        id="task-notices"
        label={preferenceLabels.taskNotices}
        hint={preferenceLabels.taskNoticesHint}
        checked={preferences.taskNotices}
        onToggle={() => set({ taskNotices: !preferences.taskNotices })}
      />
      <SwitchRow
        id="morning-digest"
        label={preferenceLabels.morningDigest}
        hint={preferenceLabels.morningDigestHint}
        checked={preferences.morningDigest}
        onToggle={() => set({ morningDigest: !preferences.morningDigest })}
      />
      <QuietHoursSetting
        value={preferences.quietHours}
        timeZone={preferences.timeZone ?? browserTimeZone()}
        onChange={(quietHours) => set({ quietHours })}
      />
    </div>
  );
}

function TeamChatChoice({
  value,
  onChange,
}: {
  value: TeamChatNoticeLevel;
  onChange: (level: TeamChatNoticeLevel) => void;
}) {
  const name = useId();
  const levels = Object.entries(preferenceLabels.teamChatLevels) as [TeamChatNoticeLevel, string][];
  return (
    <fieldset className={styles.choice}>
      <legend className={styles.legend}>{preferenceLabels.teamChat}</legend>
      <p className={styles.hint}>{preferenceLabels.teamChatHint}</p>
      <div className={styles.options}>
        {levels.map(([level, label]) => (
          <label key={level} className={styles.option}>
            <input type="radio" name={name} value={level} checked={value === level} onChange={() => onChange(level)} />
            <span>{label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function QuietHoursSetting({
  value,
  timeZone,
  onChange,
}: {
  value: QuietHours | null;
  timeZone: string;
  onChange: (quietHours: QuietHours | null) => void;
}) {
  // An edit that cannot be saved yet (both times the same) stays here; a valid one is saved at once.
  const [unsaved, setUnsaved] = useState<QuietHours | null>(null);
  const draft = unsaved ?? value ?? defaultQuietHours;
  const same = draft.from === draft.to;
  const change = (next: QuietHours) => {
    if (next.from && next.to && next.from !== next.to) {
      setUnsaved(null);
      onChange(next);
    } else setUnsaved(next);
  };
  return (
    <div className={styles.quiet}>
      <SwitchRow
        id="quiet-hours"
        label={preferenceLabels.quietHours}
        hint={preferenceLabels.quietHoursHint}
        checked={value !== null}
        onToggle={() => {
          setUnsaved(null);
          onChange(value ? null : defaultQuietHours);
        }}
      />
      {value ? (
        <div className={styles.times}>
          <label className={styles.time}>
            <span>{preferenceLabels.from}</span>
            <input
              type="time"
              value={draft.from}
              aria-invalid={same}
              onChange={(event) => change({ ...draft, from: event.target.value })}
            />
          </label>
          <label className={styles.time}>
            <span>{preferenceLabels.to}</span>
            <input
              type="time"
              value={draft.to}
              aria-invalid={same}
              onChange={(event) => change({ ...draft, to: event.target.value })}
            />
          </label>
          <p className={styles.hint}>{preferenceLabels.timeZone(timeZone)}</p>
          {same ? (
            <p className={styles.error} role="alert">
              {preferenceTexts.quietHoursSame}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
