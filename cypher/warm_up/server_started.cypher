// When the Neo4j server last started (its JVM's start, ms since the epoch): a new value means
// the server restarted, with an empty plan cache.
// params: none
// returns: started (int)
CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes
RETURN attributes.StartTime.value AS started
