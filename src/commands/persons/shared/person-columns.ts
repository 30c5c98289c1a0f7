// The columns of every persons table (list, get --email, the persons behind insights), under the
// server's names (ARCHITECTURE.md §3). A person is named by `uuid`: the list, retrieve and the
// legacy people lists all send it, with one meaning. `id` is left out because it has two: the
// list sends the UUID as `id`, retrieve the integer key (docs/server-contract.md §6.1, §6.3).
export const PERSON_COLUMNS = ['uuid', 'name', 'distinct_ids', 'created_at'];
