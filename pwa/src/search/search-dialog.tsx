import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { CheckSquare, Hash, MessageCircle, Search, User } from 'lucide-react';
import { Modal } from '../components/modal';
import { useStartConversation } from '../data/direct-hooks';
import { useOnline } from '../data/hooks';
import { usePeople } from '../data/use-people';
import { useWorkspace } from '../sync/sync-context';
import { liveSearchIndexOf } from './live-search';
import { selfDocumentId, type SearchKind } from './search-index';
import type { TextPart } from '@office/sync-protocol';
import {
  loadItemGroups,
  loadServerGroups,
  withoutDeviceItems,
  type SearchItem,
  type SearchItemGroup,
  type SearchSource,
} from './search-results';
import { useServerSearch, type ServerSearchState } from './server-search';
// The search box looks like every list screen's (components/search-field).
import fieldStyles from '../components/search-field.module.css';
import styles from './search-dialog.module.css';

/** How many options each group shows. */
const perGroup = 5;

const kindIcons = { task: CheckSquare, chat: Hash, direct: MessageCircle, person: User } satisfies Record<
  SearchKind,
  unknown
>;

/** The options shown, and the query they answer (the bench and the tests wait for it). */
interface Answer {
  query: string;
  groups: SearchItemGroup[];
}

/** The heading over each part of the list. */
const sourceHeadings: Record<SearchSource, string> = {
  device: 'On this device',
  server: 'Older history, from the server',
};

/** What the status line says of the server's search. */
function serverStatus(state: ServerSearchState, found: number): string {
  switch (state.status) {
    case 'idle':
      return '';
    case 'offline':
      return 'Older results need a connection.';
    case 'searching':
      return 'Searching older history...';
    case 'unreachable':
      return 'Older results could not be loaded: the server cannot be reached.';
    case 'failed':
      return 'Older results could not be loaded.';
    case 'done':
      return found === 0
        ? 'Nothing older on the server.'
        : `${plural(found, 'more result', 'more results')} in older history.`;
  }
}

function Marked({ parts }: { parts: readonly TextPart[] }) {
  return parts.map((part, at) => (part.match ? <mark key={at}>{part.text}</mark> : part.text));
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * Ctrl+K's dialog: a search box over what this device holds (tasks with their comments, team chat,
 * direct messages, people), offline too. Options are grouped, matched words marked; the arrow keys
 * move the active option (aria-activedescendant, focus stays in the box) and Enter opens it.
 */
export function SearchDialog({ onClose, onOpened }: { onClose: () => void; onOpened: () => void }) {
  const { db, ctx } = useWorkspace();
  const navigate = useNavigate();
  const people = usePeople();
  const startConversation = useStartConversation();
  const live = useMemo(() => liveSearchIndexOf(db), [db]);
  const exclude = useMemo(() => new Set([selfDocumentId(ctx.userId)]), [ctx.userId]);
  const listboxId = useId();
  const inputRef = useRef<HTMLInputElement>(null);

  const [query, setQuery] = useState('');
  const [ready, setReady] = useState(live.isReady);
  const [failed, setFailed] = useState(false);
  const [indexVersion, setIndexVersion] = useState(0);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [serverAnswer, setServerAnswer] = useState<Answer | null>(null);
  const online = useOnline();
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);

  // The Modal focuses the dialog as it opens (its effect runs first); the search box takes it from there.
  useEffect(() => inputRef.current?.focus(), []);

  useEffect(() => {
    let current = true;
    live.ready.then(
      () => current && setReady(true),
      (error: unknown) => {
        console.error('Building the search index failed', error);
        if (current) setFailed(true);
      },
    );
    const stop = live.subscribe(() => setIndexVersion((version) => version + 1));
    return () => {
      current = false;
      stop();
    };
  }, [live]);

  // Each keystroke searches the index in memory, then reads only the rows of the shown options. A layout
  // effect: the search starts before the typed character is painted, not a frame later.
  const needle = query.trim();
  useLayoutEffect(() => {
    if (!ready || needle === '') return undefined;
    let current = true;
    const groups = live.index.search(needle, perGroup, exclude);
    loadItemGroups(db, groups, { people, selfId: ctx.userId, now: new Date() }).then(
      (loaded) => current && setAnswer({ query: needle, groups: loaded }),
      (error: unknown) => console.error('Reading search results failed', error),
    );
    return () => {
      current = false;
    };
  }, [db, live, ready, needle, exclude, people, ctx.userId, indexVersion]);

  // The server's search runs beside the device's: its hits the device lacks come after the device's own.
  const server = useServerSearch(db, needle, online, perGroup);
  useEffect(() => {
    if (server.status !== 'done') return undefined;
    let current = true;
    loadServerGroups(db, server.answer, perGroup, { people, selfId: ctx.userId, now: new Date() }).then(
      (loaded) => current && setServerAnswer({ query: needle, groups: loaded }),
      (error: unknown) => console.error('Reading server search results failed', error),
    );
    return () => {
      current = false;
    };
  }, [db, server, needle, people, ctx.userId]);

  const shown = needle !== '' && answer?.query === needle ? answer : null;
  const serverShown = server.status === 'done' && serverAnswer?.query === needle ? serverAnswer : null;
  const serverGroups = useMemo(
    () => withoutDeviceItems(serverShown?.groups ?? [], shown?.groups ?? []),
    [shown, serverShown],
  );
  const groups = useMemo(() => [...(shown?.groups ?? []), ...serverGroups], [shown, serverGroups]);
  const items = useMemo(() => groups.flatMap((group) => group.items), [groups]);
  const activeIndex = Math.max(
    0,
    items.findIndex((item) => item.key === activeKey),
  );
  const active = items[activeIndex] ?? null;
  const optionId = (item: SearchItem) => `${listboxId}-${item.key}`;

  // The active option stays in view as the arrow keys move it.
  useEffect(() => {
    if (active) document.getElementById(`${listboxId}-${active.key}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, listboxId]);

  const open = useCallback(
    async (item: SearchItem) => {
      if (opening) return;
      if ('path' in item.target) {
        onOpened();
        await navigate(item.target.path);
        return;
      }
      const { id, name } = item.target.person;
      setOpening(true);
      try {
        const conversationId = await startConversation(id);
        onOpened();
        await navigate('/direct-messages', { state: { activeConversationId: conversationId, recipientName: name } });
      } catch (error) {
        console.error('Starting the conversation failed', error);
        setOpening(false);
      }
    },
    [navigate, onOpened, opening, startConversation],
  );

  const handleKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (items.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActiveKey(items[(activeIndex + step + items.length) % items.length]?.key ?? null);
    } else if (event.key === 'Enter' && active) {
      event.preventDefault();
      void open(active);
    }
  };

  const total = shown?.groups.reduce((sum, group) => sum + group.total, 0) ?? 0;
  const serverFound = serverGroups.reduce((sum, group) => sum + group.items.length, 0);
  const deviceStatus = failed
    ? 'Search could not read this device’s data. Please reload the app.'
    : !ready
      ? 'Preparing search...'
      : shown
        ? total === 0
          ? `No results for “${shown.query}” on this device.`
          : `${plural(total, 'result', 'results')} on this device.`
        : needle === ''
          ? 'Find tasks, comments, team chat, direct messages and people, offline too. Use ↑ and ↓ to move and Enter to open.'
          : '';
  const status = [deviceStatus, serverStatus(server, serverFound)].filter(Boolean).join(' ');
  const sectionId = (source: SearchSource) => `${listboxId}-${source}`;

  return (
    <Modal title="Search" onClose={onClose} size="large">
      <div className={fieldStyles.field}>
        <Search size={18} aria-hidden="true" className={fieldStyles.icon} />
        <input
          ref={inputRef}
          type="search"
          className={fieldStyles.input}
          aria-label="Search everything"
          placeholder="Search tasks, messages and people..."
          autoComplete="off"
          spellCheck={false}
          aria-controls={listboxId}
          aria-autocomplete="list"
          aria-activedescendant={active ? optionId(active) : undefined}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={handleKeyDown}
        />
      </div>
      <p className={total > 0 ? styles.count : styles.hint} role="status">
        {status}
      </p>
      <div
        id={listboxId}
        role="listbox"
        aria-label="Search results"
        className={styles.listbox}
        data-query={shown?.query ?? ''}
        data-server-query={serverShown?.query ?? ''}
        hidden={items.length === 0}
      >
        {groups.map((group, at) => {
          const Icon = kindIcons[group.kind];
          const headingId = `${listboxId}-${group.source}-${group.kind}`;
          // The first group of each part carries the part's heading; every group is named by both.
          const firstOfSource = groups[at - 1]?.source !== group.source;
          return (
            <div
              key={`${group.source}-${group.kind}`}
              role="group"
              aria-labelledby={`${headingId} ${sectionId(group.source)}`}
              className={`${styles.group} ${firstOfSource ? styles.firstOfSource : ''}`}
            >
              {firstOfSource && (
                <div role="presentation" id={sectionId(group.source)} className={styles.sourceHeading}>
                  {sourceHeadings[group.source]}
                </div>
              )}
              <div role="presentation" id={headingId} className={styles.groupHeading}>
                {group.heading}
                {group.source === 'device' && group.total > group.items.length && (
                  <span className={styles.groupCount}>
                    {' '}
                    · {group.items.length} of {group.total}
                  </span>
                )}
              </div>
              {group.items.map((item) => (
                <div
                  key={item.key}
                  id={optionId(item)}
                  role="option"
                  aria-selected={item === active}
                  className={styles.option}
                  onMouseMove={() => item !== active && setActiveKey(item.key)}
                  onClick={() => void open(item)}
                >
                  <Icon size={18} aria-hidden="true" className={styles.optionIcon} />
                  <span className={styles.optionText}>
                    <span className={styles.optionTitle}>
                      <Marked parts={item.title} />
                    </span>
                    {item.detail && (
                      <span className={styles.optionDetail}>
                        <Marked parts={item.detail} />
                      </span>
                    )}
                    <span className={styles.optionMeta}>{item.meta}</span>
                  </span>
                </div>
              ))}
            </div>
          );
        })}
      </div>
    </Modal>
  );
}
