// name: namespace_records
// Every namespace with its belief count, IN count and whether its switch is IN, by name.
MATCH (n:Namespace)
CALL (n) {
  MATCH (b:Belief) WHERE b.id STARTS WITH n.name + ':'
  RETURN count(b) AS beliefs, count(CASE WHEN b:In THEN 1 END) AS in_count
}
OPTIONAL MATCH (s:Belief {id: n.name + ':active'})
RETURN n.name AS name, n.file AS file, n.imported_at AS imported_at,
       n.synced_at AS synced_at, n.meta AS meta, n.repos AS repos, beliefs, in_count,
       coalesce(s:In, false) AS active
ORDER BY name

// name: save_namespace
// Records (or updates) where a namespace came from; returns nothing.
// defines: namespace $namespace
MERGE (n:Namespace {name: $namespace})
SET n.file = $file, n.imported_at = $imported_at, n.synced_at = $synced_at,
    n.meta = $meta, n.repos = $repos

// name: namespace_digests
// Every belief of a namespace as sync-agent compares it, collected in one record: [id, metadata (JSON text), retracted, retract_reason].
MATCH (b:Belief) WHERE b.id STARTS WITH $prefix
RETURN collect([b.id, b.metadata, coalesce(b.retracted, false),
                coalesce(b.retract_reason, '')]) AS rows

// name: namespace_ids
// The ids of a namespace's beliefs, collected in one record, sorted.
MATCH (b:Belief) WHERE b.id STARTS WITH $prefix
WITH b.id AS id ORDER BY id
RETURN collect(id) AS ids

// name: redefine_belief_fields
// Sets each given belief's text, source fields, metadata, extra and updated_at (a new text clears the model of an embedding computed from another: cypher/embedding/upkeep.cypher); returns nothing.
// defines: belief $rows.id
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
SET b.text = row.text, b.source = row.source, b.source_url = row.source_url,
    b.source_hash = row.source_hash, b.date = row.date, b.metadata = row.metadata,
    b.extra = row.extra, b.updated_at = row.updated_at
SET b.embedding_model = CASE WHEN b.embedding_text = coalesce(b.text, '') THEN b.embedding_model END

// name: delete_justifications_of
// Deletes every justification of the given beliefs (with their edges); returns nothing.
// defines: belief $ids
UNWIND $ids AS bid
MATCH (:Belief {id: bid})<-[:SUPPORTS]-(j:Justification)
DETACH DELETE j

// name: delete_nogoods
// Deletes the nogoods with the given ids (a namespace's, gone from or changed in its file), with their member edges; returns nothing.
// defines: nogood $ids
UNWIND $ids AS nid
MATCH (n:Nogood {id: nid})
DETACH DELETE n
