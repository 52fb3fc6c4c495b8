// Waits until every index is online.
CALL db.awaitIndexes(300)
