// Chinese and mixed text: the full-text index analyzes with Lucene's CJKAnalyzer (`cjk`), which
// indexes runs of Chinese, Japanese and Korean characters as overlapping pairs (bigrams) rather
// than single characters, and words and identifiers as the standard tokenizer cuts them,
// lowercased, English stop words dropped (see app/services/query_text.py). Queries go through
// the same analyzer. Recreating the index re-indexes the existing memories (startup waits for it
// to come online: schema/await_indexes).
DROP INDEX memory_content IF EXISTS;
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.user_id, m.branch, m.created_seq_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}
