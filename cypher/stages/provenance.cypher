// name: stage_create_run
// Creates a Run node for a stage run unless one with this id exists (idempotent); returns its id.
// defines: nothing (provenance)
MERGE (r:Run {id: $id})
ON CREATE SET r.stage = $stage, r.model = $model, r.started_at = $started_at, r.params = $params
RETURN r.id AS id

// name: stage_record_round
// Creates one Round under its run; returns the round number (no row when the run does not exist).
// defines: nothing (provenance)
MATCH (run:Run {id: $run_id})
CREATE (run)-[:HAS_ROUND]->(d:Round {
  run_id: $run_id, n: $n, stage: $stage, strategy: $strategy, cluster: $cluster,
  prompt_sha256: $prompt_sha256, tokens_in: $tokens_in, tokens_out: $tokens_out,
  seconds: $seconds
})
RETURN d.n AS n

// name: derive_link_proposed
// Links a derive round to the beliefs it proposed and applied (PROPOSED {kind, mode, label}); returns the edges made (fewer than asked when a round or belief is missing).
// defines: nothing (provenance)
MATCH (d:Round {run_id: $run_id, n: $n})
UNWIND $proposed AS p
MATCH (b:Belief {id: p.id})
CREATE (d)-[:PROPOSED {kind: p.kind, mode: p.mode, label: p.label}]->(b)
RETURN count(*) AS edges

// name: derive_provenance_of_belief
// Which derive run and round proposed a belief: the run (id, model, started_at, params), the round (n, strategy, cluster, prompt hash, tokens, seconds) and the PROPOSED edge (kind, mode, label), oldest first.
MATCH (run:Run)-[:HAS_ROUND]->(d:Round)-[p:PROPOSED]->(b:Belief {id: $id})
RETURN run.id AS run_id, run.stage AS stage, run.model AS model,
       run.started_at AS started_at, run.params AS params, d.n AS n,
       d.strategy AS strategy, d.cluster AS cluster, d.prompt_sha256 AS prompt_sha256,
       d.tokens_in AS tokens_in, d.tokens_out AS tokens_out, d.seconds AS seconds,
       p.kind AS kind, p.mode AS mode, p.label AS label
ORDER BY started_at, run_id, n
