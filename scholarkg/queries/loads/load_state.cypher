// What the graph already took of a source's snapshots (loaders/openalex_updates.py): the
// newest updated_date= partition stored whole and the newest merged_ids file applied.
MATCH (s:LoadState {id: $id})
RETURN s.updated_through AS updated_through, s.merged_through AS merged_through
