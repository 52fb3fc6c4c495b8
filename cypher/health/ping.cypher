// A trivial query: the database answers it whenever it can serve at all.
// params: none
// returns: ok (1)
RETURN 1 AS ok
