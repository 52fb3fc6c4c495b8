"""Only cypher/versions/ writes memory nodes and their links (the versioned write path).

Every other statement may read memories, but none creates or deletes a :Memory or
:MemoryVersion node, changes those labels, or creates or deletes a relationship of one: a
feature that did would bypass versioning (its change would be invisible to snapshots and
survive rollbacks).
"""

from __future__ import annotations

import re
from pathlib import Path

from app.graph import CYPHER_DIR

MEMORY_LABEL = r"(?:Memory|MemoryVersion)(?:\|(?:Memory|MemoryVersion))?"


def _code(path: Path) -> str:
    return "\n".join(line.split("//", 1)[0] for line in path.read_text().splitlines())


def violations(code: str) -> list[str]:
    """What a statement does to memory nodes that only the versioned write path may do."""
    found: list[str] = []
    memory_vars = set(re.findall(rf"\((\w+):{MEMORY_LABEL}\b", code))
    if re.search(rf"\b(?:CREATE|MERGE)\s*\(\w*:{MEMORY_LABEL}\b", code):
        found.append("creates a memory node")
    link_vars: set[str] = set()
    for var in memory_vars:
        if re.search(rf"\b(?:SET|REMOVE)\s+{var}:", code):
            found.append(f"changes the labels of {var}")
        if re.search(rf"\bDELETE\s+{var}\b", code):
            found.append(f"deletes {var}")
        for clause in re.findall(r"\b(?:CREATE|MERGE)\b[^\n]*", code):
            if re.search(rf"\({var}\)\s*<?-|-\s*>?\s*\({var}\)", clause):
                found.append(f"links {var}")
        node = rf"\({var}(?::[^)]*)?\)"
        link_vars |= set(re.findall(rf"{node}\s*<?-\[(\w+)|\[(\w+)[^\]]*\]->?\s*{node}", code))
    for var in {name for pair in link_vars for name in pair if name}:
        if re.search(rf"\bDELETE\s+{var}\b", code):
            found.append(f"deletes the relationship {var}")
    return found


def test_the_checker_sees_each_kind_of_memory_write() -> None:
    assert violations("CREATE (m:Memory {memory_id: $id})")
    assert violations("MATCH (m:Memory) REMOVE m:Memory SET m:MemoryVersion")
    assert violations("MATCH (v:MemoryVersion) DETACH DELETE v")
    assert violations("MATCH (m:Memory), (e:Entity) CREATE (m)-[:MENTIONS]->(e)")
    assert violations("MATCH (f:Feedback), (m:Memory) MERGE (f)-[:ON]->(m)")
    assert violations("MATCH (m:Memory)-[r:ON]-() DELETE r")
    assert not violations("MATCH (m:Memory {user_id: $u}) RETURN m.content")
    assert not violations("MATCH (m:Memory) CREATE (f:Feedback {memory_id: m.memory_id})")


def test_no_statement_outside_versions_writes_memory_nodes_or_their_links() -> None:
    offenders = {
        str(path.relative_to(CYPHER_DIR)): problems
        for path in sorted(CYPHER_DIR.rglob("*.cypher"))
        if path.parent.name != "versions" and (problems := violations(_code(path)))
    }
    assert offenders == {}
