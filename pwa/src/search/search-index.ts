import MiniSearch, { type SearchResult } from 'minisearch';
import { normalizeWord, wordSeparator } from '@office/sync-protocol';
import type { LocalChatMessage, LocalDirectMessage, LocalTask, LocalUser } from '../data/db';
import type { RowChange } from '../data/row-changes';

/** What the search finds, in the order the dialog lists the groups. */
export const searchKinds = ['task', 'chat', 'direct', 'person'] as const;
export type SearchKind = (typeof searchKinds)[number];

/** The Dexie table each kind is read from. */
export const kindTables = {
  task: 'tasks',
  chat: 'chatMessages',
  direct: 'directMessages',
  person: 'users',
} as const satisfies Record<SearchKind, string>;
export type SearchTable = (typeof kindTables)[SearchKind];

const kindOfTable = new Map<string, SearchKind>(searchKinds.map((kind) => [kindTables[kind], kind]));

/** One row as the index holds it: only the words, never a copy of the row (the dialog reads rows by id). */
interface SearchDocument {
  /** `<kind>:<row id>`. */
  id: string;
  title?: string;
  text?: string;
  comments?: string;
  /** A task's assignee and creator, by the names the directory holds now. */
  assignee?: string;
  creator?: string;
  name?: string;
  email?: string;
  department?: string;
}

const fields = ['title', 'text', 'comments', 'assignee', 'creator', 'name', 'email', 'department'] as const;

const documentId = (kind: SearchKind, rowId: string): string => `${kind}:${rowId}`;

/** The row id and kind of an index document id. */
export function parseDocumentId(id: string): { kind: SearchKind; rowId: string } {
  const at = id.indexOf(':');
  return { kind: id.slice(0, at) as SearchKind, rowId: id.slice(at + 1) };
}

/** A person's name as the index knows it now (from the directory), else the copy a row carries. */
type NameOf = (ref: { id: string; name: string }) => string;

/** The words of one row, by its table. */
export function documentOf(table: SearchTable, row: unknown, nameOf: NameOf = (ref) => ref.name): SearchDocument {
  switch (table) {
    case 'tasks': {
      const task = row as LocalTask;
      return {
        id: documentId('task', task.id),
        title: task.title,
        text: task.description,
        comments: task.comments.map((comment) => comment.text).join('\n'),
        assignee: task.assignedTo ? nameOf(task.assignedTo) : '',
        creator: nameOf(task.assignedBy),
      };
    }
    case 'chatMessages': {
      const message = row as LocalChatMessage;
      return { id: documentId('chat', message.id), text: message.text };
    }
    case 'directMessages': {
      const message = row as LocalDirectMessage;
      return { id: documentId('direct', message.id), text: message.text };
    }
    case 'users': {
      const user = row as LocalUser;
      return {
        id: documentId('person', user.id),
        name: user.name,
        email: user.email,
        department: user.department ?? '',
      };
    }
  }
}

/** A hit: the row it names and the indexed words that matched (what the dialog highlights). */
export interface SearchHit {
  rowId: string;
  terms: readonly string[];
}

/** One group of the answer: its best hits, and how many rows matched in all. */
export interface SearchGroup {
  kind: SearchKind;
  hits: SearchHit[];
  total: number;
}

/**
 * Every word of the query must match; the last one, still being typed, as a prefix. Common words match
 * thousands of messages and each match is scored, so typo tolerance (one letter off in words of 4 letters
 * or more, two in words of 10 or more) is tried only when the words as typed find nothing.
 */
const exactOptions = {
  prefix: (_term: string, index: number, terms: string[]) => index === terms.length - 1,
  combineWith: 'AND',
  boost: { title: 3, name: 3 },
} as const;
const fuzzyOptions = {
  ...exactOptions,
  fuzzy: (term: string) => (term.length >= 4 ? 0.2 : false),
  maxFuzzy: 2,
} as const;

/**
 * The full-text index of what this device holds (MiniSearch: prefix and fuzzy matching, and
 * incremental add, replace and discard, so a change never re-indexes everything).
 */
export class SearchIndex {
  private readonly mini = new MiniSearch<SearchDocument>({
    fields: [...fields],
    storeFields: [],
    tokenize: (text) => text.split(wordSeparator),
    processTerm: normalizeWord,
  });

  /** The row ids held, per kind: a cleared table's documents are found without a scan of the index. */
  private readonly rowIds = new Map<SearchKind, Set<string>>(searchKinds.map((kind) => [kind, new Set()]));

  /** The directory's names, by user id: a task is indexed under its people's names as they are now. */
  private readonly names = new Map<string, string>();
  /** The people of each task indexed (ids only), and the tasks of each person: a rename finds its tasks. */
  private readonly peopleOfTask = new Map<string, readonly string[]>();
  private readonly tasksOfPerson = new Map<string, Set<string>>();
  /** Tasks indexed under a name that has changed since: to be indexed again from their rows (`reindexTasks`). */
  private readonly staleTasks = new Set<string>();

  private readonly nameOf: NameOf = (ref) => this.names.get(ref.id) ?? ref.name;

  get size(): number {
    return this.mini.documentCount;
  }

  /** Adds many rows of one table at once, yielding to the page between chunks. */
  async addAll(table: SearchTable, rows: readonly unknown[]): Promise<void> {
    const kind = kindOfTable.get(table);
    if (!kind) return;
    const ids = this.rowIds.get(kind);
    const fresh = rows.filter((row) => !ids?.has((row as { id: string }).id));
    for (const row of fresh) ids?.add((row as { id: string }).id);
    for (const row of fresh) this.track(table, row);
    await this.mini.addAllAsync(
      fresh.map((row) => documentOf(table, row, this.nameOf)),
      { chunkSize: 2_000 },
    );
    for (const row of rows.filter((row) => !fresh.includes(row))) this.put(table, row);
  }

  /** Applies committed changes in order; answers whether the index changed. */
  apply(changes: readonly RowChange[]): boolean {
    let changed = false;
    for (const change of changes) {
      const kind = kindOfTable.get(change.table);
      if (!kind) continue;
      changed = true;
      if (change.type === 'put') this.put(kindTables[kind], change.row);
      else if (change.type === 'delete') this.remove(kind, change.key);
      else for (const rowId of [...(this.rowIds.get(kind) ?? [])]) if (change.range(rowId)) this.remove(kind, rowId);
    }
    return changed;
  }

  /**
   * The tasks indexed under a person's former name (or under the name a task carried, before the directory knew the
   * person): the caller reads their rows and hands them to `reindexTasks`.
   */
  get staleTaskIds(): string[] {
    return [...this.staleTasks];
  }

  /**
   * Indexes again the tasks of `ids` still stale, from their rows as read (`rows[i]` is the row of `ids[i]`, or
   * undefined when it is gone). A task put or deleted since it went stale is indexed already and left alone.
   */
  reindexTasks(ids: readonly string[], rows: readonly (LocalTask | undefined)[]): void {
    for (const [at, id] of ids.entries()) {
      if (!this.staleTasks.has(id)) continue;
      const row = rows[at];
      if (row && this.rowIds.get('task')?.has(id)) this.put('tasks', row);
      else this.staleTasks.delete(id);
    }
  }

  /** Keeps the directory's names and who each task is about, so a rename can find the tasks to index again. */
  private track(table: SearchTable, row: unknown): void {
    if (table === 'users') {
      const user = row as LocalUser;
      const before = this.names.get(user.id);
      this.names.set(user.id, user.name);
      if (before !== user.name) for (const taskId of this.tasksOfPerson.get(user.id) ?? []) this.staleTasks.add(taskId);
    } else if (table === 'tasks') {
      const task = row as LocalTask;
      this.untrackTask(task.id);
      const people = task.assignedTo ? [task.assignedTo.id, task.assignedBy.id] : [task.assignedBy.id];
      this.peopleOfTask.set(task.id, people);
      for (const personId of people) {
        let tasks = this.tasksOfPerson.get(personId);
        if (!tasks) {
          tasks = new Set();
          this.tasksOfPerson.set(personId, tasks);
        }
        tasks.add(task.id);
      }
      // Indexed now under the current names.
      this.staleTasks.delete(task.id);
    }
  }

  private untrackTask(taskId: string): void {
    for (const personId of this.peopleOfTask.get(taskId) ?? []) {
      const tasks = this.tasksOfPerson.get(personId);
      tasks?.delete(taskId);
      if (tasks?.size === 0) this.tasksOfPerson.delete(personId);
    }
    this.peopleOfTask.delete(taskId);
    this.staleTasks.delete(taskId);
  }

  private put(table: SearchTable, row: unknown): void {
    const kind = kindOfTable.get(table);
    if (!kind) return;
    this.track(table, row);
    const document = documentOf(table, row, this.nameOf);
    const rowId = (row as { id: string }).id;
    if (this.mini.has(document.id)) this.mini.replace(document);
    else this.mini.add(document);
    this.rowIds.get(kind)?.add(rowId);
  }

  private remove(kind: SearchKind, rowId: string): void {
    const id = documentId(kind, rowId);
    if (this.mini.has(id)) this.mini.discard(id);
    this.rowIds.get(kind)?.delete(rowId);
    // A person who leaves the directory keeps their last name in `names`: their tasks still carry it.
    if (kind === 'task') this.untrackTask(rowId);
  }

  /**
   * The best `perGroup` hits of each kind, best first, and how many matched; `exclude` leaves out
   * rows (the signed-in person, whom nobody messages). Groups without a hit are left out.
   */
  search(query: string, perGroup: number, exclude: ReadonlySet<string> = new Set()): SearchGroup[] {
    if (query.trim() === '') return [];
    const groups = new Map<SearchKind, SearchGroup>(searchKinds.map((kind) => [kind, { kind, hits: [], total: 0 }]));
    let results: SearchResult[] = this.mini.search(query, exactOptions);
    if (results.length === 0) results = this.mini.search(query, fuzzyOptions);
    for (const result of results) {
      const { kind, rowId } = parseDocumentId(result.id as string);
      if (exclude.has(documentId(kind, rowId))) continue;
      const group = groups.get(kind);
      if (!group) continue;
      group.total += 1;
      if (group.hits.length < perGroup) group.hits.push({ rowId, terms: result.terms });
    }
    return searchKinds.flatMap((kind) => {
      const group = groups.get(kind);
      return group && group.total > 0 ? [group] : [];
    });
  }
}

/** The index key of the signed-in person, to leave them out of People. */
export const selfDocumentId = (userId: string): string => documentId('person', userId);
