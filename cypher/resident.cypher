// name: transactions_of_command
// Returns the ids of the running transactions whose metadata names the given command of the resident engine (one its caller cancelled).
SHOW TRANSACTIONS
YIELD transactionId, metaData
WHERE metaData.eem_command = $command
RETURN transactionId
