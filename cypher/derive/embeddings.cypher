// Sampling pools and the embedding cache on Belief nodes: properties `embedding` (the
// vector, stored as a float32 array by db.create.setNodeVectorProperty), `embedding_sha256`
// (sha256 of the text it was computed from), `embedding_model` and `embedding_text` (that text
// itself: cypher/embedding/upkeep.cypher compares it with the belief's). Reads return one collected
// list where they can: the driver spends ~15 us per record, a whole second per 100k rows.

// name: premise_pool
// One record, `pool`: [id, text] of each IN premise (no justification, not a review defeater) by id, only those whose lower-cased id or text contains one of $words when $words is not empty.
MATCH (b:Belief:In)
WHERE NOT b:Defeater AND NOT EXISTS { (b)<-[:SUPPORTS]-(j:Justification) WHERE j.gate IS NULL }
  AND (size($words) = 0
       OR any(w IN $words WHERE toLower(b.id) CONTAINS w OR toLower(b.text) CONTAINS w))
WITH b ORDER BY b.id
RETURN collect([b.id, b.text]) AS pool

// name: embedding_keys
// One record, `keys`: [id, embedding_sha256, embedding_model] of each belief of $ids that has a stored embedding (the vector itself is not read).
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
WHERE b.embedding_sha256 IS NOT NULL
RETURN collect([b.id, b.embedding_sha256, b.embedding_model]) AS keys

// name: all_embedding_keys
// One record, `keys`: [id, embedding_sha256, embedding_model] of every belief with a stored embedding (one scan; cheaper than seeking most of them by id).
MATCH (b:Belief)
WHERE b.embedding_sha256 IS NOT NULL
RETURN collect([b.id, b.embedding_sha256, b.embedding_model]) AS keys

// name: embeddings_by_id
// One row per belief of $ids with a stored embedding: id, sha256, model, vector.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
WHERE b.embedding_sha256 IS NOT NULL AND b.embedding IS NOT NULL
RETURN b.id AS id, b.embedding_sha256 AS sha256, b.embedding_model AS model,
       b.embedding AS vector

// name: save_embeddings
// Stores each of $rows ({id, sha256, model, vector, text}) on its belief, with the text it was computed from (row.text; null when the writer does not have it, so the upkeep counts it stale); returns `written`, how many beliefs were found.
// defines: nothing (embeddings follow the text)
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
CALL db.create.setNodeVectorProperty(b, 'embedding', row.vector)
SET b.embedding_sha256 = row.sha256, b.embedding_model = row.model,
    b.embedding_text = row.text
RETURN count(b) AS written

// name: similar_beliefs
// Up to $limit beliefs nearest to $vector by the belief_embedding vector index: id, score (cosine, 1 = same direction), best first.
CALL db.index.vector.queryNodes('belief_embedding', $limit, $vector) YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id

// name: belief_embedding_index
// The belief_embedding vector index, if it exists: name, state, labels, properties, dimensions, similarity.
SHOW VECTOR INDEXES YIELD name, state, labelsOrTypes, properties, options
WHERE name = 'belief_embedding'
RETURN name, state, labelsOrTypes AS labels, properties,
       options.indexConfig.`vector.dimensions` AS dimensions,
       options.indexConfig.`vector.similarity_function` AS similarity

// name: await_indexes
// Waits up to $seconds for every index to be online (after init_schema); returns nothing.
CALL db.awaitIndexes($seconds)
