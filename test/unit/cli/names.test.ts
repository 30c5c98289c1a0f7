// How messages name a person and a user: one rule (ARCHITECTURE.md §3).
import { describe, expect, it } from 'vitest';
import { personName, userName } from '../../../src/cli/names.js';

const UUID = '01999a5d-0000-7000-8000-000000000249';

describe('personName', () => {
  it('is the UUID, with what the person was given by when that was something else', () => {
    expect(personName({ id: UUID })).toBe(`person ${UUID}`);
    expect(personName({ id: UUID.toUpperCase() })).toBe(`person ${UUID}`);
    expect(personName({ id: UUID, distinctId: 'user-249' })).toBe(`person ${UUID} (distinct id user-249)`);
    expect(personName({ id: '249', uuid: UUID })).toBe(`person ${UUID} (id 249)`);
  });

  it('is the integer id only when nothing gave the UUID', () => {
    expect(personName({ id: '249' })).toBe('person 249');
    expect(personName({ distinctId: 'user-249' })).toBe('the person with distinct id user-249');
  });
});

describe('userName', () => {
  it('is "you" for @me, and the UUID for anyone else', () => {
    expect(userName('@me')).toBe('you');
    expect(userName(UUID)).toBe(`user ${UUID}`);
  });
});
