// name: stage_runs
// Every run of every LLM stage (derive, review, dedup, contradictions, forge), newest first: stage, model, start, rounds, tokens.
//
// No parameters.
//
// Rows: run, stage, model, started_at, rounds, tokens_in, tokens_out, params (the run's
// settings, JSON text). What a derive run added: the run_added query with its id.
MATCH (run:Run)
OPTIONAL MATCH (run)-[:HAS_ROUND]->(d:Round)
WITH run, count(d) AS rounds, sum(d.tokens_in) AS tokens_in, sum(d.tokens_out) AS tokens_out
RETURN run.id AS run, run.stage AS stage, run.model AS model, run.started_at AS started_at,
       rounds, tokens_in, tokens_out, run.params AS params
ORDER BY started_at DESC, run
