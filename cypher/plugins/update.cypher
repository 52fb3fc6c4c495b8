// Sets the status or the score of a package version (each only when given).
// params: key, version, status (or null), score (or null)
// returns: nothing
MATCH (p:Plugin {key: $p.key, version: $p.version})
SET p.status = coalesce($p.status, p.status), p.score = coalesce($p.score, p.score),
    p.updated_at = datetime()
