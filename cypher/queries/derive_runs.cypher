// name: derive_runs
// Every derive run, newest first: model, start, rounds, beliefs added, and tokens spent.
//
// No parameters.
//
// Rows: run, model, started_at, rounds, added (beliefs its rounds proposed and applied),
// still_in (of those, how many are IN now), tokens_in, tokens_out, params (the run's settings,
// JSON text).
MATCH (run:Run {stage: 'derive'})
OPTIONAL MATCH (run)-[:HAS_ROUND]->(d:Round)
WITH run, count(d) AS rounds, sum(d.tokens_in) AS tokens_in, sum(d.tokens_out) AS tokens_out
RETURN run.id AS run, run.model AS model, run.started_at AS started_at, rounds,
       COUNT { (run)-[:HAS_ROUND]->(:Round)-[:PROPOSED]->(:Belief) } AS added,
       COUNT { (run)-[:HAS_ROUND]->(:Round)-[:PROPOSED]->(:In) } AS still_in,
       tokens_in, tokens_out, run.params AS params
ORDER BY started_at DESC, run
