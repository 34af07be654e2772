package dev.jiyi.cli;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.CandidateIndex;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.ranking.Recall;
import dev.jiyi.ranking.RecallConfig;

import java.time.Clock;
import java.util.List;

/**
 * The engine that commands (and later the MCP server) share: the authority opened on the home's
 * database with the FTS5 index always attached.
 */
public final class Jiyi implements AutoCloseable {

    private final Home home;
    private final Authority authority;
    private final Fts5Index fts5;

    private Jiyi(Home home, Authority authority, Fts5Index fts5) {
        this.home = home;
        this.authority = authority;
        this.fts5 = fts5;
    }

    public static Jiyi open(Home home) {
        Fts5Index fts5 = new Fts5Index();
        return new Jiyi(home, Authority.open(home.database(), List.of(fts5)), fts5);
    }

    /** Recall over the named index ({@code fts5}; {@code lucene} arrives with its module). */
    public Recall recall(String indexName, RecallConfig config, Clock clock) {
        return new Recall(authority, candidateIndex(indexName), config, clock);
    }

    /** The named candidate index: {@code fts5} (the default when null). */
    public CandidateIndex candidateIndex(String indexName) {
        if (indexName != null && !indexName.equals("fts5")) {
            throw new InvalidInputException("index", indexName.equals("lucene")
                    ? "lucene is not available in this build yet; use fts5"
                    : "must be fts5 or lucene");
        }
        return fts5;
    }

    public Home home() {
        return home;
    }

    public Authority authority() {
        return authority;
    }

    @Override
    public void close() {
        authority.close();
    }
}
