// name: constraint_belief_id
// Creates the unique constraint on belief ids (idempotent).
CREATE CONSTRAINT belief_id IF NOT EXISTS FOR (b:Belief) REQUIRE b.id IS UNIQUE

// name: constraint_missing_id
// Creates the unique constraint on forward-reference placeholders (idempotent).
CREATE CONSTRAINT missing_id IF NOT EXISTS FOR (m:Missing) REQUIRE m.id IS UNIQUE

// name: constraint_nogood_id
// Creates the unique constraint on nogood ids (idempotent).
CREATE CONSTRAINT nogood_id IF NOT EXISTS FOR (n:Nogood) REQUIRE n.id IS UNIQUE

// name: drop_constraint_derive_run_id
// Drops the constraint of the DeriveRun nodes older versions wrote (they become Run nodes; idempotent).
DROP CONSTRAINT derive_run_id IF EXISTS

// name: constraint_run_id
// Creates the unique constraint on stage run ids (idempotent).
CREATE CONSTRAINT run_id IF NOT EXISTS FOR (r:Run) REQUIRE r.id IS UNIQUE

// name: index_round_run
// Creates the index that finds a run's round by (run_id, n) (idempotent).
CREATE INDEX round_run IF NOT EXISTS FOR (d:Round) ON (d.run_id, d.n)

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

// name: index_belief_embedding_model
// Creates the range index on Belief.embedding_model, which counts the beliefs with a current embedding of a model before every search by meaning (idempotent).
CREATE INDEX belief_embedding_model IF NOT EXISTS FOR (b:Belief) ON (b.embedding_model)

// name: index_belief_text
// Creates the belief_text full-text index on Belief.text and Belief.id, what `search` ranks by, with the english analyzer (stemming: "deactivation" finds "auto-deactivated"; idempotent).
CREATE FULLTEXT INDEX belief_text IF NOT EXISTS FOR (b:Belief) ON EACH [b.text, b.id]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}

// name: constraint_write_lock_key
// Creates the unique constraint on the write lock's key, so concurrent first writers MERGE one lock node (idempotent).
CREATE CONSTRAINT write_lock_key IF NOT EXISTS FOR (l:WriteLock) REQUIRE l.key IS UNIQUE

// name: constraint_source_path
// Creates the unique constraint on forge's source paths (idempotent).
CREATE CONSTRAINT source_path IF NOT EXISTS FOR (s:Source) REQUIRE s.path IS UNIQUE

// name: constraint_change_seq
// Creates the unique constraint on change-log sequence numbers (idempotent).
CREATE CONSTRAINT change_seq IF NOT EXISTS FOR (c:Change) REQUIRE c.seq IS UNIQUE

// name: index_change_at
// Creates the range index that serves `log --since` and `diff --since` by time (idempotent).
CREATE INDEX change_at IF NOT EXISTS FOR (c:Change) ON (c.at)

// name: constraint_proposal_id
// Creates the unique constraint on proposal ids (idempotent).
CREATE CONSTRAINT proposal_id IF NOT EXISTS FOR (p:Proposal) REQUIRE p.id IS UNIQUE

// name: index_proposal_target
// Creates the index that finds the pending proposals on a target (idempotent).
CREATE INDEX proposal_target IF NOT EXISTS FOR (p:Proposal) ON (p.target)

// name: constraint_namespace_name
// Creates the unique constraint on the names of imported agents' namespaces (idempotent).
CREATE CONSTRAINT namespace_name IF NOT EXISTS FOR (n:Namespace) REQUIRE n.name IS UNIQUE
// name: index_belief_access_tags
// Creates the range index that finds whether any belief carries access tags of its own (idempotent).
CREATE INDEX belief_access_tags IF NOT EXISTS FOR (b:Belief) ON (b.access_tags)

// name: index_belief_effective_tags
// Creates the range index that finds whether any belief carries effective access tags (idempotent).
CREATE INDEX belief_effective_tags IF NOT EXISTS FOR (b:Belief) ON (b.effective_tags)

// name: constraint_release_name
// Creates the unique constraint on release names (idempotent).
CREATE CONSTRAINT release_name IF NOT EXISTS FOR (r:Release) REQUIRE r.name IS UNIQUE
