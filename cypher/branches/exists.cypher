// Whether a user has a branch of that name (main always exists).
// params: user_id, name
// returns: found
RETURN $name = 'main' OR EXISTS { (:Branch {user_id: $user_id, name: $name}) } AS found
