// The sandbox's one entry: start a server, and the types of what it hands back. The CLI
// (`hogctl sandbox`, `hogctl demo`) and the tests import from here and nowhere deeper.
//
// Besides startSandbox, it exports what a test needs to check a client against the sandbox's
// world without reimplementing it: the TOTP codes an authenticator app would show, the fault
// spec parser (to plan faults the same way the server draws them), and who the legacy insight
// lists and cohorts hold.
export { startSandbox, type Sandbox, type SandboxOptions, type RecordedRequest } from './server.js';
export type { BulkDeleteResponse } from './routes/index.js';
export type { Person } from './store.js';
export type { CaptureStats } from './capture.js';
export type { SentMail } from './identity.js';
export { totp, TOTP_STEP_SECONDS } from './totp.js';
export { FaultInjector, parseFaultSpec, type FaultKind } from './faults.js';
export { cohortsOf } from './cohorts.js';
export { funnelPeople, lifecyclePeople } from './insight-people.js';
export { uuidFromDistinctId } from './person-uuid.js';
