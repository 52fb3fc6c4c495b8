// Plugin administration: trusted signers by name and by key, package versions (immutable, one
// node per key and version, with their files), and the audit trail newest first.
CREATE CONSTRAINT plugin_signer_name IF NOT EXISTS FOR (s:PluginSigner) REQUIRE s.name IS UNIQUE;
CREATE CONSTRAINT plugin_signer_key IF NOT EXISTS FOR (s:PluginSigner) REQUIRE s.public_key IS UNIQUE;
CREATE CONSTRAINT plugin_identity IF NOT EXISTS FOR (p:Plugin) REQUIRE (p.key, p.version) IS UNIQUE;
CREATE CONSTRAINT audit_event_identity IF NOT EXISTS FOR (e:AuditEvent) REQUIRE e.event_id IS UNIQUE;
CREATE INDEX audit_event_time IF NOT EXISTS FOR (e:AuditEvent) ON (e.at)
