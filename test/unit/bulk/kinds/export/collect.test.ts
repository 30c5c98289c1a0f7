// What an export says to do about parts it could not read: a scope the key lacks is fixed by the
// key, an endpoint the server does not offer (an older PostHog) is not.
import { describe, expect, it } from 'vitest';
import { unreadableHint } from '../../../../../src/bulk/kinds/export/collect.js';

describe('unreadableHint', () => {
  it('points at the key for parts the key may not read', () => {
    const hint = unreadableHint(['project 1, person p: activity: 403: You do not have the scope activity_log:read']);
    expect(hint).toContain('give the key the scopes named');
    expect(hint).not.toContain('does not offer');
  });

  it('does not blame the key for a part the server does not offer', () => {
    const hint = unreadableHint(['project 1, person p: feature flags: 404: this server does not offer it']);
    expect(hint).not.toContain('scopes');
    expect(hint).toContain('this server does not offer');
  });

  it('says both when both happened', () => {
    const hint = unreadableHint([
      'project 1, person p: activity: 403: no scope',
      'project 1, person p: feature flags: 405: this server does not offer it',
    ]);
    expect(hint).toContain('give the key the scopes named');
    expect(hint).toContain('this server does not offer');
  });
});
