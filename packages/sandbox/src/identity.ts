// Who may sign in to the sandbox and with what (docs/server-contract.md §9–§11): passwords, TOTP devices,
// backup codes, e-mail verification state, failed-login lockout, the sessions, and the outbox
// where the mail a real server would send lands. The sandbox user of world.ts gets a password;
// a second user has 2FA switched on from the start, so signing in with a code can be tried at
// once. Passwords are random per start (throwaway, printed by `hogctl sandbox`).

import { createHmac, randomBytes, randomInt, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { throttled } from './errors.js';
import { SessionStore } from './session.js';
import { newBackupCodes, newTotpSecret } from './totp.js';
import type { SandboxUser, World } from './world.js';

export interface TotpDevice {
  secret: string;
  /** The last step accepted, so a code cannot be used twice. */
  lastStep: number;
  /** Bound into remember cookies, so they die with the device. */
  persistentId: string;
}

export interface Account {
  user: SandboxUser;
  password: StoredPassword;
  totp: TotpDevice | null;
  /** Unused backup codes (django-otp's static tokens). */
  backupCodes: string[];
  pendingEmail: string | null;
  /** null for old accounts: they may still sign in (LoginSerializer). */
  emailVerified: boolean | null;
  lastLoginAt: number | null;
  /** django-otp's ThrottlingMixin: failures in a row and when the last one happened. */
  otpFailures: { count: number; at: number };
  /** Writable UserSerializer fields the sandbox has no model for (theme_mode, ...). */
  extra: Record<string, unknown>;
  /** Whether a password sign-in without TOTP must be confirmed with an e-mailed code (Cloud, and
   * any instance that can send e-mail; off where it cannot). */
  codeVerification: boolean;
  /** Bound into remember cookies of accounts without a TOTP device (code-verified sign-ins). */
  rememberId: string;
  /** The pending e-mail verification code: when it was issued and the address it proves ('' for
   * the account's own address). One slot, so a new code replaces the previous one. */
  emailCode: { issuedAt: number; target: string } | null;
  /** Tries at an e-mail verification code, counted from the first one (not reset by a new code). */
  emailCodeAttempts: { count: number; since: number } | null;
}

export interface SentMail {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for, e.g. `email_verification`, `2fa_enabled`. */
  kind: string;
  /** For a sign-in or verification code mail: the code. */
  code?: string;
  /** For verification mail: the link and its parts. */
  link?: string;
  uuid?: string;
  token?: string;
  at: string;
}

export interface IdentityOptions {
  now: () => number;
  siteUrl: () => string;
  log: (line: string) => void;
  /** The sandbox user's password; random when not given. */
  password?: string;
  /** Failed logins before django-axes locks an e-mail out (AXES_FAILURE_LIMIT); default 30. */
  loginFailureLimit?: number;
  /** Whether accounts without TOTP confirm sign-ins with an e-mailed code; default false. */
  loginCodes?: boolean;
}

/** AXES_COOLOFF_TIME */
export const LOCKOUT_MS = 15 * 60 * 1000;
/**
 * How long an e-mail verification code lives, and the window of its attempt count: 30 minutes
 * (PostHog/posthog#90177 [I: the value; the stored posthog/helpers/two_factor_session.py still
 * has CODE_TTL_SECONDS = 600]).
 */
export const EMAIL_CODE_TTL_MS = 30 * 60 * 1000;
/** CODE_MAX_ATTEMPTS (posthog/helpers/two_factor_session.py): the 6th try in a window is refused. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** PASSWORD_RESET_TIMEOUT, which bounds e-mail verification tokens: three days. */
export const EMAIL_TOKEN_TIMEOUT_S = 3 * 24 * 3600;
/** Django's PasswordResetTokenGenerator counts seconds from 2001-01-01. */
const TOKEN_EPOCH_MS = Date.UTC(2001, 0, 1);

export function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * A password as the sandbox keeps it: salted and hashed, as Django keeps it (the hash is bound into
 * e-mail codes, so that a new password kills them). The passwords are throwaway and never leave
 * the machine, and no answer shows how they are kept, so scrypt runs at a sixteenth of its default
 * cost (N = 1024), and only when the hash is first needed: a sandbox starts with two accounts, the
 * test suite starts hundreds of sandboxes, and most never sign in (a hash costs 2-6 ms here).
 */
class StoredPassword {
  private readonly salt = randomBytes(16);
  private hashed: Buffer | undefined;

  constructor(private plain: string | undefined) {}

  hash(): Buffer {
    if (!this.hashed) {
      this.hashed = hashPassword(this.plain!, this.salt);
      this.plain = undefined;
    }
    return this.hashed;
  }

  matches(password: string): boolean {
    return timingSafeEqual(hashPassword(password, this.salt), this.hash());
  }
}

function hashPassword(password: string, salt: Buffer): Buffer {
  return scryptSync(password, salt, 32, { N: 1024 });
}

export class Identity {
  readonly sessions: SessionStore;
  readonly outbox: SentMail[] = [];
  readonly accounts = new Map<number, Account>();
  readonly loginFailureLimit: number;
  private readonly failures = new Map<string, { count: number; lastAt: number }>();
  private readonly tokenSecret = randomBytes(32);
  /**
   * Anonymous e-mail calls are throttled per uuid: UserEmailVerificationThrottle (6/day) on
   * request_email_verification, and on newer servers UserVerifyEmailThrottle (6 per 20 minutes)
   * on verify_email. Sliding windows of request times.
   */
  private readonly verificationHits = { request: new Map<string, number[]>(), verify: new Map<string, number[]>() };
  /** The second user's details, for tests and the sandbox banner. */
  readonly twoFactorUser: { email: string; password: string; uuid: string; totpSecret: string; backupCodes: string[] };
  readonly password: string;
  /** Answer the 2-hour re-auth refusal as older servers did: `permission_denied`, no own code. */
  olderReauth = false;
  /** Verify e-mail addresses with a mailed link and token, as servers before PostHog/posthog#86493
   * did, instead of a 6-digit code. */
  linkVerification = false;

  constructor(
    world: World,
    private readonly options: IdentityOptions,
  ) {
    this.sessions = new SessionStore(options.now);
    this.loginFailureLimit = options.loginFailureLimit ?? 30;
    this.password = options.password ?? randomPassword();
    this.add(world.user, this.password);

    const second: SandboxUser = {
      ...world.user,
      id: 2,
      uuid: randomUUID(),
      distinctId: randomBytes(16).toString('hex'),
      email: 'totp@example.com',
      firstName: 'Otto',
      lastName: 'Factor',
      isStaff: false,
      organizationIds: [...world.user.organizationIds],
    };
    const secondPassword = randomPassword();
    const account = this.add(second, secondPassword);
    account.totp = { secret: newTotpSecret(), lastStep: -1, persistentId: randomUUID() };
    account.backupCodes = newBackupCodes();
    this.twoFactorUser = {
      email: second.email,
      password: secondPassword,
      uuid: second.uuid,
      totpSecret: account.totp.secret,
      backupCodes: [...account.backupCodes],
    };
  }

  private add(user: SandboxUser, password: string): Account {
    const account: Account = {
      user,
      password: new StoredPassword(password),
      totp: null,
      backupCodes: [],
      pendingEmail: null,
      emailVerified: true,
      lastLoginAt: null,
      otpFailures: { count: 0, at: 0 },
      extra: {},
      codeVerification: this.options.loginCodes ?? false,
      rememberId: randomUUID(),
      emailCode: null,
      emailCodeAttempts: null,
    };
    this.accounts.set(user.id, account);
    return account;
  }

  user(id: number): SandboxUser | undefined {
    return this.accounts.get(id)?.user;
  }

  account(user: SandboxUser): Account {
    const account = this.accounts.get(user.id);
    if (!account) throw new Error(`sandbox: no account for user ${user.id}`);
    return account;
  }

  byEmail(email: string): Account | undefined {
    const wanted = email.trim().toLowerCase();
    for (const account of this.accounts.values()) if (account.user.email.toLowerCase() === wanted) return account;
    return undefined;
  }

  byUuid(uuid: string): Account | undefined {
    for (const account of this.accounts.values()) if (account.user.uuid === uuid) return account;
    return undefined;
  }

  setPassword(account: Account, password: string): void {
    account.password = new StoredPassword(password);
  }

  checkPassword(account: Account, password: string): boolean {
    return account.password.matches(password);
  }

  // --- django-axes: failed logins per e-mail -------------------------------------------------

  /** Minutes until the lockout ends, or null when the e-mail may try. */
  lockedOutFor(email: string): number | null {
    const entry = this.failures.get(email.trim().toLowerCase());
    if (!entry || entry.count < this.loginFailureLimit) return null;
    const left = entry.lastAt + LOCKOUT_MS - this.options.now();
    if (left <= 0) {
      this.failures.delete(email.trim().toLowerCase());
      return null;
    }
    return Math.ceil(left / 60_000);
  }

  recordFailure(email: string): void {
    const key = email.trim().toLowerCase();
    const entry = this.failures.get(key) ?? { count: 0, lastAt: 0 };
    this.failures.set(key, { count: entry.count + 1, lastAt: this.options.now() });
  }

  clearFailures(email: string): void {
    this.failures.delete(email.trim().toLowerCase());
  }

  // --- e-mail ----------------------------------------------------------------------------------

  /** Where the mail a real server would send goes: the outbox, and the sandbox log. */
  send(mail: Omit<SentMail, 'at'>): SentMail {
    const sent = { ...mail, at: new Date(this.options.now()).toISOString() };
    this.outbox.push(sent);
    this.options.log(`sandbox: mail to ${mail.to}: ${mail.subject}${mail.link ? ` ${mail.link}` : ''}${mail.code ? ` ${mail.code}` : ''}`);
    return sent;
  }

  /**
   * What PostHog mails to verify an address: a 6-digit code on current servers
   * (EmailVerificationCodeVerifier.send_code), a link on older ones. `target` is the staged
   * address of an e-mail change; without it, a verified account's pending address, else the
   * account's own address.
   */
  sendVerification(account: Account, target?: string): SentMail {
    return this.linkVerification ? this.sendVerificationLink(account) : this.sendVerificationCode(account, target);
  }

  /**
   * `send_code`: a fresh code in the account's one slot, bound to the address it is mailed to. The
   * attempt count stays: the request endpoint is public, and a reset there would let a caller
   * alternate new codes and guesses.
   */
  private sendVerificationCode(account: Account, targetEmail?: string): SentMail {
    const target = targetEmail ?? (account.emailVerified !== false ? (account.pendingEmail ?? '') : '');
    const issuedAt = Math.floor(this.options.now() / 1000);
    account.emailCode = { issuedAt, target };
    const code = this.verificationCode(account, issuedAt, target);
    return this.send({
      to: target || account.user.email,
      subject: 'Verify your email address',
      text: `Enter this code to verify your email address: ${code}. This code expires in ${EMAIL_CODE_TTL_MS / 60_000} minutes.`,
      kind: 'email_verification_code',
      code,
      uuid: account.user.uuid,
    });
  }

  /**
   * code_based_verification_token_generator.make_code: six digits of an HMAC over the user's
   * state, the issue time and the target, so signing in, a new password or another address
   * kills the code.
   */
  private verificationCode(account: Account, issuedAt: number, target: string): string {
    const u = account.user;
    const value = `${u.id}${u.email}${account.password.hash().toString('hex')}${u.isActive ? 'True' : 'False'}${account.lastLoginAt === null ? '' : Math.floor(account.lastLoginAt / 1000)}${issuedAt}${target}`;
    const digest = createHmac('sha256', this.tokenSecret).update(value).digest();
    return String(digest.readUInt32BE(0) % 1_000_000).padStart(6, '0');
  }

  /** `check_code`: the code of the slot, for the address the account now expects, within 30 minutes. */
  checkVerificationCode(account: Account, code: string): boolean {
    const state = account.emailCode;
    if (!state || this.options.now() - state.issuedAt * 1000 > EMAIL_CODE_TTL_MS) return false;
    // A code proves only the address it was issued for: the staged one for a (legacy or) verified
    // account's change, the account's own otherwise.
    const expected = account.emailVerified !== false ? (account.pendingEmail ?? '') : '';
    if (state.target !== expected) return false;
    const wanted = Buffer.from(this.verificationCode(account, state.issuedAt, state.target));
    const given = Buffer.from(code);
    return wanted.length === given.length && timingSafeEqual(wanted, given);
  }

  /** `reserve_attempt`: counts a try and returns the count; the first try starts the window. */
  reserveVerificationAttempt(account: Account): number {
    const now = this.options.now();
    const current = account.emailCodeAttempts;
    if (!current || now - current.since >= EMAIL_CODE_TTL_MS) account.emailCodeAttempts = { count: 1, since: now };
    else current.count++;
    return account.emailCodeAttempts!.count;
  }

  /** `invalidate`: the code and the attempt count go (after success, or a cancelled change). */
  invalidateVerificationCode(account: Account): void {
    account.emailCode = null;
    account.emailCodeAttempts = null;
  }

  /** `send_email_verification` (older servers): a link to the pending address when there is one. */
  private sendVerificationLink(account: Account): SentMail {
    const token = this.emailToken(account);
    const link = `${this.options.siteUrl()}/verify_email/${account.user.uuid}/${token}`;
    return this.send({
      to: account.pendingEmail ?? account.user.email,
      subject: 'Verify your email address',
      text: `Please verify your email address by following this link: ${link}`,
      kind: 'email_verification',
      link,
      uuid: account.user.uuid,
      token,
    });
  }

  private tokenHash(account: Account, timestamp: number): string {
    const u = account.user;
    const value = `${u.id}${u.email}${account.pendingEmail ?? 'None'}${account.emailVerified === null ? 'None' : account.emailVerified ? 'True' : 'False'}${account.lastLoginAt === null ? '' : Math.floor(account.lastLoginAt / 1000)}${timestamp}`;
    const full = createHmac('sha256', this.tokenSecret).update(value).digest('hex');
    // Django keeps every second character.
    return [...full].filter((_, i) => i % 2 === 0).join('');
  }

  /**
   * EmailVerificationTokenGenerator: `<seconds since 2001 in base 36>-<hash>`, where the hash
   * covers the user, the e-mail, the pending e-mail, the verified flag and the last login, so a
   * token dies once any of them changes.
   */
  emailToken(account: Account): string {
    const timestamp = Math.floor((this.options.now() - TOKEN_EPOCH_MS) / 1000);
    return `${timestamp.toString(36)}-${this.tokenHash(account, timestamp)}`;
  }

  checkEmailToken(account: Account, token: string): boolean {
    const match = /^([0-9a-z]{1,13})-([0-9a-f]+)$/.exec(token);
    if (!match) return false;
    const timestamp = parseInt(match[1], 36);
    const expected = Buffer.from(this.tokenHash(account, timestamp));
    const given = Buffer.from(match[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    const age = Math.floor((this.options.now() - TOKEN_EPOCH_MS) / 1000) - timestamp;
    return age <= EMAIL_TOKEN_TIMEOUT_S;
  }

  throttleVerification(kind: 'request' | 'verify', uuid: string): void {
    const windowMs = kind === 'request' ? 24 * 3600 * 1000 : 20 * 60 * 1000;
    const now = this.options.now();
    const hits = this.verificationHits[kind];
    const recent = (hits.get(uuid) ?? []).filter((t) => t > now - windowMs);
    if (recent.length >= 6) throw throttled((recent[0] + windowMs - now) / 1000);
    recent.push(now);
    hits.set(uuid, recent);
  }

  // --- remember cookies --------------------------------------------------------------------------

  /** The value of a `remember-cookie_*`: user, device and time, signed. */
  rememberValue(account: Account): string {
    const payload = `${account.user.id}:${this.rememberDevice(account)}:${this.options.now()}`;
    return `${Buffer.from(payload).toString('base64url')}.${createHmac('sha256', this.tokenSecret).update(payload).digest('base64url')}`;
  }

  /** Whether a remember cookie still vouches for this user's current device. */
  checkRemember(account: Account, value: string, maxAgeMs: number): boolean {
    const [encoded, signature] = value.split('.');
    if (!encoded || !signature) return false;
    const payload = Buffer.from(encoded, 'base64url').toString();
    const expected = createHmac('sha256', this.tokenSecret).update(payload).digest('base64url');
    if (expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) return false;
    const [userId, deviceId, at] = payload.split(':');
    return Number(userId) === account.user.id && deviceId === this.rememberDevice(account) && this.options.now() - Number(at) < maxAgeMs;
  }

  /** What a remember cookie vouches for: the TOTP device, else the account's code sign-ins. */
  private rememberDevice(account: Account): string {
    return account.totp ? `totp-${account.totp.persistentId}` : `code-${account.rememberId}`;
  }

  /** A fresh 6-digit sign-in code, mailed to the user (send_code_based_verification). */
  sendLoginCode(account: Account): string {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    this.send({
      to: account.user.email,
      subject: 'Your PostHog sign-in code',
      text: `Your sign-in code is ${code}. It expires in 10 minutes.`,
      kind: 'login_code',
      code,
    });
    return code;
  }
}
