// Gives up the named lease if $p.holder has it.
// params: name, holder
MATCH (lease:Lease {name: $p.name, holder: $p.holder})
SET lease.holder = null, lease.expires_at = null
