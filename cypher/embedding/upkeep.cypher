// Keeping every belief's embedding current (engine/embedding/upkeep.py). A belief's embedding
// is current for a model when `embedding_model` is that model and `embedding_text` (the text
// the vector was computed from, written with it) is the belief's text as it is now. The
// statements that reword a belief in place clear its `embedding_model` when the text no longer
// is the embedded one, so the count before a search is two index counts; the upkeep compares
// the texts themselves, and so catches any rewording.

// name: embedding_backlog
// One record: `total` beliefs (the count store), `current` of them whose embedding is of $model (the belief_embedding_model index: a text reworded in place clears its belief's embedding_model, so this is what is current), and `recorded`, the model the memory records for its vectors (null: none).
CALL () { MATCH (b:Belief) RETURN count(b) AS total }
CALL () { MATCH (b:Belief) WHERE b.embedding_model = $model RETURN count(b) AS current }
OPTIONAL MATCH (n:NetworkInfo {key: 'network'})
RETURN total, current, n.embedding_model AS recorded

// name: embedding_backlog_of
// One record: as embedding_backlog, over the beliefs of $ids only (a client that sees part of the memory).
CALL () {
  UNWIND $ids AS bid
  MATCH (b:Belief {id: bid})
  RETURN count(b) AS total, count(CASE WHEN b.embedding_model = $model THEN 1 END) AS current
}
OPTIONAL MATCH (n:NetworkInfo {key: 'network'})
RETURN total, current, n.embedding_model AS recorded

// name: beliefs_to_embed
// One record, `rows`: [id, text ('' for none)] of up to $limit beliefs with an id greater than $after and no current embedding of $model, by id.
MATCH (b:Belief)
WHERE b.id > $after
  AND (b.embedding_model IS NULL OR b.embedding_model <> $model
       OR b.embedding_text IS NULL OR b.embedding_text <> coalesce(b.text, ''))
WITH b ORDER BY b.id LIMIT $limit
RETURN collect([b.id, coalesce(b.text, '')]) AS rows

// name: record_embedding_model
// Records $model as the model that makes this memory's vectors; returns nothing.
// defines: nothing (which model fills the embedding cache: not a definition)
MERGE (n:NetworkInfo {key: 'network'})
SET n.embedding_model = $model
