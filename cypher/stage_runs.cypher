// The runs of the LLM stages (derive, review, dedup, forge), as each stage records them:
// (:Run {id, stage, model, started_at, params (JSON text)}).

// name: recent_stage_runs
// One record, `runs`: [id, stage, model, started_at, params] of the $limit most recent runs, newest first.
MATCH (r:Run)
WITH r ORDER BY r.started_at DESC, r.id DESC
LIMIT $limit
RETURN collect([r.id, r.stage, r.model, r.started_at, r.params]) AS runs
