// Sets the status or the score of a package version (each only when given).
// params: key, version, status (or null), score (or null)
// returns: nothing
MATCH (p:Plugin {key: $key, version: $version})
SET p.status = coalesce($status, p.status), p.score = coalesce($score, p.score),
    p.updated_at = datetime()
