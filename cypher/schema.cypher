// name: constraint_belief_id
// Creates the unique constraint on belief ids (idempotent).
CREATE CONSTRAINT belief_id IF NOT EXISTS FOR (b:Belief) REQUIRE b.id IS UNIQUE

// name: constraint_missing_id
// Creates the unique constraint on forward-reference placeholders (idempotent).
CREATE CONSTRAINT missing_id IF NOT EXISTS FOR (m:Missing) REQUIRE m.id IS UNIQUE

// name: constraint_nogood_id
// Creates the unique constraint on nogood ids (idempotent).
CREATE CONSTRAINT nogood_id IF NOT EXISTS FOR (n:Nogood) REQUIRE n.id IS UNIQUE

// name: constraint_derive_run_id
// Creates the unique constraint on derive run ids (idempotent).
CREATE CONSTRAINT derive_run_id IF NOT EXISTS FOR (r:DeriveRun) REQUIRE r.id IS UNIQUE

// name: constraint_pair_verdict_key
// Creates the unique constraint on dedup / contradictions pair verdicts (stage|a|b) (idempotent).
CREATE CONSTRAINT pair_verdict_key IF NOT EXISTS FOR (v:PairVerdict) REQUIRE v.key IS UNIQUE

// name: index_belief_depth
// Creates the range index that serves `WHERE b.depth >= n` (idempotent).
CREATE INDEX belief_depth IF NOT EXISTS FOR (b:Belief) ON (b.depth)

// name: index_belief_embedding
// Creates the belief_embedding vector index (384 dimensions, cosine) on Belief.embedding (idempotent).
CREATE VECTOR INDEX belief_embedding IF NOT EXISTS
FOR (b:Belief) ON b.embedding
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
