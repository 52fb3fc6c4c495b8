// Bootstrap: lease names are unique, so that concurrent MERGEs of one lease cannot duplicate it.
CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (lease:Lease) REQUIRE lease.name IS UNIQUE
