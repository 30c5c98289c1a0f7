// The route table: every group of routes on one router. Each module under routes/ declares its
// routes whole (every method of a route where the route is declared); a new group is one line here.

import { Router } from '../router.js';
import { registerBulkDeleteRoutes, type BulkDeleteResponse } from './bulk-delete.js';
import { registerCohortRoutes } from './cohorts.js';
import { registerDataDeletionRequestRoutes } from './data-deletion-requests.js';
import { registerLegacyPersonRoutes } from './legacy-persons.js';
import { registerSubjectDataRoutes } from './subject-data.js';
import { registerLoginRoutes } from './login.js';
import { registerPersonActionRoutes } from './person-actions.js';
import { registerPersonBatchRoutes } from './person-batch.js';
import { registerPersonalApiKeyRoutes } from './personal-api-keys.js';
import { registerPersonRoutes } from './persons.js';
import { registerProjectRoutes } from './projects.js';
import { registerQueryRoutes } from './query.js';
import { registerUserSecurityRoutes } from './user-security.js';
import { registerUserRoutes } from './users.js';

export { BULK_DELETE_RESPONSES, type BulkDeleteResponse } from './bulk-delete.js';

/** `bulkDeleteResponse` is read on every bulk_delete, so a test can switch it while the server runs. */
export function createRouter(bulkDeleteResponse: () => BulkDeleteResponse): Router {
  const router = new Router();
  registerProjectRoutes(router);
  registerCohortRoutes(router);
  registerPersonalApiKeyRoutes(router);
  registerPersonRoutes(router);
  registerBulkDeleteRoutes(router, bulkDeleteResponse);
  registerPersonActionRoutes(router);
  registerPersonBatchRoutes(router);
  registerUserRoutes(router);
  registerLoginRoutes(router);
  registerUserSecurityRoutes(router);
  registerQueryRoutes(router);
  registerLegacyPersonRoutes(router);
  registerSubjectDataRoutes(router);
  registerDataDeletionRequestRoutes(router);
  return router;
}
