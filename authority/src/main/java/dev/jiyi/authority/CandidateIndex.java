package dev.jiyi.authority;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A lexical index that proposes recall candidates: the FTS5 index, or the derived Lucene index.
 * Recall treats every answer as a proposal and rechecks it against the authority, so an index that
 * lags behind (or returns something since deleted) can never surface text the authority no longer
 * holds.
 *
 * <p>Implementations analyze the query with the shared token stream and drop stop words, so that a
 * query sharing only common words with a text does not propose it (R6). The connection is the
 * authority's, inside a read transaction; an index that lives outside SQLite ignores it.
 */
public interface CandidateIndex {

    /** A short name for reports and {@code --index}: {@code fts5}, {@code lucene}. */
    String name();

    /** At most {@code limit} memories of {@code scope} matching {@code query}, best first. */
    List<Candidate> memories(Connection c, Scope scope, String query, int limit) throws SQLException;

    /** At most {@code limit} raw events of {@code scope} matching {@code query}, best first. */
    List<Candidate> events(Connection c, Scope scope, String query, int limit) throws SQLException;
}
