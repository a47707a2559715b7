// name: run_added
// What one derive run added: every round in order, with the beliefs it proposed and their truth now.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param run_id => '20250101T000000Z-1a2b3c'
//
// Find run ids with the derive_runs query. A round that proposed nothing (a dry round) gives
// one row with no belief. Rows: round, strategy, cluster, prompt_sha256, belief, kind (DERIVE
// or GATE), mode (ALL or ANY), truth (now), depth (now), text.
MATCH (:Run {id: $run_id})-[:HAS_ROUND]->(d:Round)
OPTIONAL MATCH (d)-[p:PROPOSED]->(b:Belief)
RETURN d.n AS round, d.strategy AS strategy, d.cluster AS cluster,
       d.prompt_sha256 AS prompt_sha256, b.id AS belief, p.kind AS kind, p.mode AS mode,
       CASE WHEN b IS NULL THEN null WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED'
            ELSE 'OUT' END AS truth,
       b.depth AS depth, b.text AS text
ORDER BY round, belief
