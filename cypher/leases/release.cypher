// Gives up the named lease if $holder has it.
// params: name, holder
MATCH (lease:Lease {name: $name, holder: $holder})
SET lease.holder = null, lease.expires_at = null
