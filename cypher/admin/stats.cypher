// System-wide counts for operators.
// returns: one row of counts
RETURN COUNT { (:User) } AS users,
       COUNT { (u:User) WHERE u.active } AS active_users,
       COUNT { (:ApiKey) } AS api_keys,
       COUNT { (k:ApiKey) WHERE k.revoked_at IS NULL } AS live_api_keys,
       COUNT { (m:Memory) WHERE m.is_active } AS active_memories,
       COUNT { (:MemoryVersion) } AS memory_versions,
       COUNT { (:Session) } AS sessions,
       COUNT { (:Snapshot) } AS snapshots,
       COUNT { (:Branch) } AS branches,
       COUNT { (:Feedback) } AS feedback,
       COUNT { (:Entity) } AS entities,
       COUNT { (:Task) } AS tasks
