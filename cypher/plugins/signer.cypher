// One trusted signer.
// params: name
// returns: public_key (no row for an unknown signer)
MATCH (s:PluginSigner {name: $p.name})
RETURN s.public_key AS public_key
