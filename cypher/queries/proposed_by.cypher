// name: proposed_by
// Which derive run and round proposed a belief: the run, the round's strategy, cluster and prompt hash, and how it was proposed.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// No rows: no derive round proposed it (a belief the user added or imported).
// Rows (oldest run first): run, model, started_at, round, strategy, cluster (the embedding
// cluster sampled, if any), prompt_sha256 (hash of the exact prompt sent), tokens_in,
// tokens_out, seconds, kind (DERIVE or GATE), mode (ALL or ANY), label.
MATCH (run:Run)-[:HAS_ROUND]->(d:Round)-[p:PROPOSED]->(:Belief {id: $id})
RETURN run.id AS run, run.model AS model, run.started_at AS started_at,
       d.n AS round, d.strategy AS strategy, d.cluster AS cluster,
       d.prompt_sha256 AS prompt_sha256, d.tokens_in AS tokens_in,
       d.tokens_out AS tokens_out, d.seconds AS seconds,
       p.kind AS kind, p.mode AS mode, p.label AS label
ORDER BY started_at, run, round
