// Which persons are one group, from the values of the keys they share: the part of `persons
// duplicates` that needs no server. Persons that share a value of any key are joined (a person
// sharing an e-mail address with one and a user id with another makes the three one group), but
// never through a value that names no one person (placeholders.ts), and a group is kept only when
// its size, after every join, is within --min-group and --max-group: the group is what a merge
// makes one person, so that is where the limit holds, not per value.
import { placeholderReason, typeReason, type JsonType } from './placeholders.js';

/** --max-group's default, in `persons duplicates` and again in `persons merge`. */
export const DEFAULT_MAX_GROUP = 100;

/** A person found through one value of one key. */
export interface KeyedRow {
  uuid: string;
  /** The key's name: `email`, a property name or an expression. */
  key: string;
  /** The value as the query computed it, as text. */
  value: string;
  /** When the key is a property: the JSON type of its stored value (only text names a person). */
  type?: JsonType;
}

export interface JoinRules {
  minGroup: number;
  maxGroup: number;
  /** Values a user gave to --ignore-value, as placeholders.ts `comparable` makes them. */
  ignored: ReadonlySet<string>;
}

/** A value no person was joined through, and why. */
export interface LeftOutValue {
  key: string;
  /** As the query computed it; `type` says whether it was text. */
  value: string;
  type?: JsonType;
  persons: number;
  reason: string;
}

export interface JoinedGroup {
  /** In the order first found. */
  uuids: string[];
  /** Every value the group was joined through, by key name, each list sorted. */
  values: Record<string, string[]>;
}

export interface Joined {
  groups: JoinedGroup[];
  leftOut: LeftOutValue[];
  /** Groups larger than maxGroup once joined: left out whole. */
  tooLarge: JoinedGroup[];
}

/** Why persons are never joined through this row, or undefined when they may be. */
export function rowReason(row: Pick<KeyedRow, 'value' | 'type'>, ignored: ReadonlySet<string>): string | undefined {
  return (row.type === undefined ? undefined : typeReason(row.type)) ?? placeholderReason(row.value, ignored);
}

export function joinPersons(rows: KeyedRow[], rules: JoinRules): Joined {
  const union = new UnionFind();
  const leftOut = new Map<string, LeftOutValue & { uuids: Set<string> }>();
  const order: string[] = [];
  for (const row of rows) {
    const person = `person\u0000${row.uuid}`;
    if (!union.has(person)) order.push(row.uuid);
    union.add(person);
    const reason = rowReason(row, rules.ignored);
    if (reason === undefined) {
      union.join(`value\u0000${row.key}\u0000${row.value}`, person);
      continue;
    }
    const id = `${row.key}\u0000${row.type ?? ''}\u0000${row.value}`;
    const out = leftOut.get(id) ?? { key: row.key, value: row.value, type: row.type, persons: 0, reason, uuids: new Set<string>() };
    out.uuids.add(row.uuid);
    out.persons = out.uuids.size;
    leftOut.set(id, out);
  }

  const byRoot = new Map<string, JoinedGroup>();
  const groupOf = (root: string) => byRoot.get(root) ?? byRoot.set(root, { uuids: [], values: {} }).get(root)!;
  for (const uuid of order) groupOf(union.find(`person\u0000${uuid}`)).uuids.push(uuid);
  for (const node of union.nodes()) {
    if (!node.startsWith('value\u0000')) continue;
    const [, key, value] = node.split('\u0000');
    const group = groupOf(union.find(node));
    (group.values[key] ??= []).push(value);
  }
  const groups: JoinedGroup[] = [];
  const tooLarge: JoinedGroup[] = [];
  for (const group of byRoot.values()) {
    for (const list of Object.values(group.values)) list.sort();
    if (group.uuids.length < rules.minGroup) continue;
    (group.uuids.length > rules.maxGroup ? tooLarge : groups).push(group);
  }
  return { groups, leftOut: [...leftOut.values()].map(({ uuids: _, ...v }) => v), tooLarge };
}

/** Sets of nodes joined by what they share. */
class UnionFind {
  private readonly parent = new Map<string, string>();

  has(node: string): boolean {
    return this.parent.has(node);
  }

  add(node: string): void {
    if (!this.parent.has(node)) this.parent.set(node, node);
  }

  find(node: string): string {
    this.add(node);
    let root = node;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    // Path compression keeps later finds short.
    for (let n = node; n !== root;) {
      const up = this.parent.get(n)!;
      this.parent.set(n, root);
      n = up;
    }
    return root;
  }

  join(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(rb, ra);
  }

  nodes(): string[] {
    return [...this.parent.keys()];
  }
}
