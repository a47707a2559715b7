// Proposals: writes queued for a person (engine/proposals/). A (:Proposal) is outside the
// network: labels, verify and export never read it.

// name: next_proposal_number
// One more than the highest proposal number so far (1 for the first), in one record.
MATCH (p:Proposal)
RETURN coalesce(max(p.n), 0) + 1 AS n

// name: create_proposal
// Creates one pending proposal from $p (a map of its properties); returns nothing.
// defines: nothing (proposals are outside the network)
CREATE (p:Proposal)
SET p = $p

// name: proposals_listed
// Every proposal (of $status when not null), oldest first, each as a map.
MATCH (p:Proposal)
WHERE $status IS NULL OR p.status = $status
RETURN p {.*} AS proposal
ORDER BY p.n

// name: proposal_by_id
// The proposal $id as a map (no row when there is none).
MATCH (p:Proposal {id: $id})
RETURN p {.*} AS proposal

// name: supersede_pending_proposals
// Marks every pending proposal on $target other than $newer superseded by it; returns their ids, collected in one record.
// defines: nothing (proposals are outside the network)
OPTIONAL MATCH (p:Proposal {target: $target, status: 'pending'})
WHERE p.id <> $newer
SET p.status = 'superseded', p.superseded_by = $newer, p.decided_at = $at
RETURN collect(p.id) AS ids

// name: decide_proposal
// Writes a decision (status, who, when, why, forced, drift, the change-log seq) on the proposal $id; returns its id.
// defines: nothing (proposals are outside the network)
MATCH (p:Proposal {id: $id})
SET p.status = $status, p.decided_by = $by, p.decided_at = $at,
    p.decision_reason = $reason, p.forced = $forced, p.drift = $drift,
    p.change_seq = $change_seq
RETURN p.id AS id

// name: link_proposal_change
// Links the accepted proposal $id to the change-log entry $seq its accept appended; returns nothing.
// defines: nothing (proposals are outside the network)
MATCH (p:Proposal {id: $id}), (c:Change {seq: $seq})
CREATE (p)-[:APPLIED_AS]->(c)
