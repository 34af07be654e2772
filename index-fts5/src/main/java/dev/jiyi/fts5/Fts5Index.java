package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.Table;
import dev.jiyi.authority.TableCounts;
import dev.jiyi.authority.StorageException;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.LexicalIndex;
import dev.jiyi.authority.index.SearchCounts;
import dev.jiyi.authority.index.TransactionalIndex;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The FTS5 index: {@code memories_fts} and {@code events_fts} rows written and removed inside the
 * authority's transactions, holding the analysis module's tokens (jieba index mode + CJK unigrams)
 * as space-separated text in column {@code tokens}, each behind its scope's key
 * ({@link Fts5Terms#tokens}), and the row's scope token in column {@code scope}. Row IDs are
 * {@code memories.seq} and {@code events.sequence}.
 *
 * <p>A word is a different FTS5 term in each scope, so a search for a scope's terms reads only that
 * scope's rows (S1), and FTS5's document frequency of a term is the scope's (R11): a scope's search
 * costs what its own rows cost, however many other scopes share the table. The scope token only
 * counts the scope's rows; each table's rank function ({@code bm25(1.0, 0.0)}, set by migration 10)
 * gives its column weight 0.
 */
public final class Fts5Index implements TransactionalIndex, LexicalIndex {

    /** Content terms computed ahead of a write transaction ({@link #analyzeAhead}). */
    private final TermsAhead ahead = new TermsAhead();
    private final SearchCounts counts = new SearchCounts();
    private final Fts5Merges merges = new Fts5Merges();
    private final Fts5Lengths lengths = new Fts5Lengths();
    /** Common terms' counts and postings kept across reads ({@link KeptTerms}). */
    private final KeptTerms keptTerms = new KeptTerms();

    /**
     * This index's format and analysis. Rows are written and deleted with the tokens computed from
     * the authoritative text, so the tokens at deletion must be exactly those at insertion: a change
     * to the analysis ({@link ChineseTokens#version()}, the JDK's Unicode tables included) or to the
     * row layout below changes this string, and the authority rebuilds the index before writing to it.
     */
    public static final String VERSION = "fts5-scoped-terms-1/" + ChineseTokens.version();

    /**
     * What every text term of a scope's rows starts with in the FTS5 tables ({@link Fts5Terms#tokens}),
     * for those who read the tables themselves (tests, diagnostics).
     */
    public static String termPrefix(Scope scope) {
        return Fts5Terms.key(scope);
    }

    @Override
    public String version() {
        return VERSION;
    }

    /** Loads the jieba dictionary before the write lock is taken. */
    @Override
    public void prepare() {
        ChineseTokens.warmUp();
    }

    /**
     * Analyzes the texts of the rows a write is about to insert, before it takes the write lock:
     * jieba segmentation is most of the cost of indexing a row.
     */
    @Override
    public void analyzeAhead(List<EventSubmission> events, List<MemoryDraft> memories) {
        List<String> texts = new ArrayList<>(events.size() + memories.size());
        for (EventSubmission e : events) {
            texts.add(e.text());
        }
        for (MemoryDraft d : memories) {
            texts.add(Memory.searchText(d.text(), d.quote(), d.subject(), d.gist(), d.cueKeys()));
        }
        ahead.analyze(texts);
    }

    /**
     * The index's two tables, as this index defines them (since schema 12 the FTS5 index owns them;
     * migrations 1, 4 and 10 created their earlier forms and stay as released): contentless, the
     * {@code ascii} tokenizer over the analysis module's scoped tokens, the scope token in a column
     * of its own that the rank function {@code bm25(1.0, 0.0)} weighs 0, and secure-delete, so that a
     * deleted row's terms leave the index pages at once (D1); and {@link ScopeRows}'s table. A change
     * here is a change of {@link #VERSION}: the rebuild that follows begins with {@link #clear},
     * which replaces the tables with ones of this definition.
     */
    private static final List<String> TABLES = List.of(
            "CREATE TABLE IF NOT EXISTS fts5_scope_rows (tbl TEXT NOT NULL, scope TEXT NOT NULL, "
                    + "rows INTEGER NOT NULL, PRIMARY KEY (tbl, scope)) WITHOUT ROWID",
            Fts5Lengths.TABLE,
            "CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(tokens, scope, content = '', tokenize = 'ascii')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(tokens, scope, content = '', tokenize = 'ascii')",
            "INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1)",
            "INSERT INTO events_fts (events_fts, rank) VALUES ('secure-delete', 1)",
            "INSERT INTO memories_fts (memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')",
            "INSERT INTO events_fts (events_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')");

    @Override
    public boolean installed(Sql tx) throws SQLException {
        return Sql.strings(tx.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                + "AND name IN ('memories_fts', 'events_fts', 'fts5_scope_rows')")).getFirst().equals("3");
    }

    @Override
    public void install(Sql tx) throws SQLException {
        for (String statement : TABLES) {
            tx.execute(statement);
        }
    }

    /**
     * One row per event and per memory (counts only: rows with the right count and the wrong terms
     * would pass; {@code reindex} rebuilds from the authoritative text either way).
     */
    @Override
    public List<String> check(Sql tx, TableCounts counts) throws SQLException {
        List<String> problems = new ArrayList<>();
        for (Table table : List.of(Table.EVENTS, Table.MEMORIES)) {
            long indexed = Long.parseLong(Sql.strings(tx.prepare("SELECT count(*) FROM " + table.sqlName() + "_fts"))
                    .getFirst());
            if (indexed != counts.of(table)) {
                problems.add(table.sqlName() + "_fts holds " + indexed + " row(s) for " + counts.of(table) + " "
                        + table.sqlName() + ": the FTS5 index is out of step, run `jiyi reindex`");
            }
            int scopes = ScopeRows.outOfStep(tx, table.sqlName());
            if (scopes > 0) {
                problems.add("fts5_scope_rows counts the " + table.sqlName() + " of " + scopes + " scope(s) wrong: "
                        + "the FTS5 index is out of step, run `jiyi reindex`");
            }
        }
        return problems;
    }

    @Override
    /** Replaces both tables with empty ones of this index's definition ({@link #TABLES}). */
    public void clear(Sql tx) throws SQLException {
        ahead.clear();
        keptTerms.clear();
        tx.execute("DROP TABLE IF EXISTS memories_fts");
        tx.execute("DROP TABLE IF EXISTS events_fts");
        tx.execute("DROP TABLE IF EXISTS fts5_scope_rows");
        tx.execute("DROP TABLE IF EXISTS fts5_lengths");
        install(tx);
    }

    @Override
    public void eventAdded(Sql tx, Event event) throws SQLException {
        write(tx, "INSERT INTO events_fts (rowid, scope, tokens) VALUES (?, ?, ?)", event.sequence(),
                Fts5Terms.scopeToken(event.scope()), tokensAhead(event.scope(), event.text()));
        ScopeRows.add(tx, EVENTS, event.scope(), 1);
        merges.eventInserted(event.sequence());
        lengths.touched(false, event.sequence());
    }

    /**
     * The tables are contentless and in FTS5's secure-delete mode: a row is deleted by handing FTS5
     * the tokens it was inserted with, and its entries leave the index pages in the same statement,
     * so no term of a permanently deleted text stays behind in {@code *_fts_data} (D1).
     */
    @Override
    public void eventRemoved(Sql tx, Event event) throws SQLException {
        write(tx, "INSERT INTO events_fts (events_fts, rowid, scope, tokens) VALUES ('delete', ?, ?, ?)", event.sequence(),
                Fts5Terms.scopeToken(event.scope()), Fts5Terms.contentTokens(event.scope(), event.text()));
        ScopeRows.add(tx, EVENTS, event.scope(), -1);
        lengths.touched(false, event.sequence());
    }

    @Override
    public void memoryAdded(Sql tx, Memory memory) throws SQLException {
        write(tx, "INSERT INTO memories_fts (rowid, scope, tokens) VALUES (?, ?, ?)", memory.rowId(),
                Fts5Terms.scopeToken(memory.scope()), tokensAhead(memory.scope(), memory.searchText()));
        ScopeRows.add(tx, MEMORIES, memory.scope(), 1);
        merges.memoryInserted(memory.rowId());
        lengths.touched(true, memory.rowId());
    }

    @Override
    public void memoryRemoved(Sql tx, Memory memory) throws SQLException {
        write(tx, "INSERT INTO memories_fts (memories_fts, rowid, scope, tokens) VALUES ('delete', ?, ?, ?)", memory.rowId(),
                Fts5Terms.scopeToken(memory.scope()), Fts5Terms.contentTokens(memory.scope(), memory.searchText()));
        ScopeRows.add(tx, MEMORIES, memory.scope(), -1);
        lengths.touched(true, memory.rowId());
    }

    /** The tokens of a text in a scope, from terms {@link #analyzeAhead} computed when it got the text, else computed now. */
    private String tokensAhead(Scope scope, String text) {
        List<String> terms = ahead.termsOf(text);
        return terms != null ? Fts5Terms.tokens(scope, terms) : Fts5Terms.contentTokens(scope, text);
    }

    /**
     * Secure-delete removes a row's entries from the leaf pages, but the b-tree keeps, for every
     * leaf, a key in {@code *_fts_idx}: the shortest byte prefix of the leaf's first term that sorts
     * after the previous leaf (it may end inside a UTF-8 character). If a removed term vanished from
     * the index and a key is a prefix of it that no surviving term shares, the key is a trace of the
     * deleted text (up to the whole term). Then the table is merged into one new segment, which
     * rebuilds every key from surviving terms. Rare, and the only deletion cost that grows with the
     * archive (0.8 s at 100,000 events).
     */
    @Override
    public void removalsDone(Sql tx, List<Event> events, List<Memory> memories) throws SQLException {
        Set<String> eventTerms = new HashSet<>();
        events.forEach(e -> eventTerms.addAll(Fts5Terms.indexedTerms(e.scope(), e.text())));
        Set<String> memoryTerms = new HashSet<>();
        memories.forEach(m -> memoryTerms.addAll(Fts5Terms.indexedTerms(m.scope(), m.searchText())));
        KeyTraces.purge(tx, "events_fts", eventTerms);
        KeyTraces.purge(tx, "memories_fts", memoryTerms);
    }

    /** FTS5's merges that this transaction's inserts owe, in a step of their size ({@link Fts5Merges}). */
    @Override
    public void beforeCommit(Sql tx) throws SQLException {
        merges.beforeCommit(tx);
        lengths.beforeCommit(tx);
    }

    @Override
    public String name() {
        return "fts5";
    }

    @Override
    public SearchCounts searchCounts() {
        return counts;
    }

    @Override
    public List<Candidate> memories(Snapshot snapshot, String query, Eligibility filter, int limit) {
        List<String> searched = Fts5Terms.searchTerms(query);
        if (searched.isEmpty() || limit == 0) {
            return List.of();
        }
        try {
            ScopedBm25 own = scoped(snapshot, MEMORIES, filter.scope());
            List<String> asked = own.searched(searched);
            if (asked.isEmpty()) {
                return List.of();
            }
            List<Candidate> best = own.alone() ? bestMemories(snapshot, Fts5Terms.literal(filter.scope(), asked), filter, limit)
                    : EligibleRows.best(snapshot, own.ranked(asked), 1, filter, limit);
            counts.add(SearchCounts.Search.MEMORIES, own.visited(asked), best.size());
            return coverage(best, own.ideal(searched));
        } catch (SQLException e) {
            throw new StorageException("finding memory candidates", e);
        }
    }

    /**
     * R9: the given rows' scores, summed as {@link #memories} sums them from the same postings (kept
     * for the read) but for those rows alone ({@link ScopedBm25#ranked(List, Collection)}); a scope
     * with every row of the table ranks them by FTS5's own query. Then the revoked ones are left out.
     */
    @Override
    public List<Candidate> memoriesAmong(Snapshot snapshot, String query, Scope scope, Collection<Long> rows,
                                         int limit) {
        List<String> searched = Fts5Terms.searchTerms(query);
        if (searched.isEmpty() || rows.isEmpty() || limit == 0) {
            return List.of();
        }
        try {
            ScopedBm25 own = scoped(snapshot, MEMORIES, scope);
            List<String> asked = own.searched(searched);
            if (asked.isEmpty()) {
                return List.of();
            }
            List<Candidate> scored = own.alone() ? amongByFts5(snapshot, Fts5Terms.literal(scope, asked), rows)
                    : own.ranked(asked, rows).best(Integer.MAX_VALUE, 1);
            List<Candidate> best = EligibleRows.best(snapshot, scored, Eligibility.anyTime(scope), limit);
            counts.add(SearchCounts.Search.MEMORIES, own.visited(asked), best.size());
            return coverage(best, own.ideal(searched));
        } catch (SQLException e) {
            throw new StorageException("finding memory candidates", e);
        }
    }

    /**
     * Those of {@code rows} that match {@code terms}, by FTS5's rank, best first. {@code +rowid}: as
     * a constraint on the rowid, FTS5 would run the query once per row and count every posting of
     * each term again for each; as an expression it filters one run's matches, and the rank is
     * computed for those rows only.
     */
    private static List<Candidate> amongByFts5(Snapshot snapshot, String terms, Collection<Long> rows)
            throws SQLException {
        PreparedStatement ps = snapshot.sql().prepare("SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? "
                + "AND +rowid IN (SELECT value FROM json_each(?)) ORDER BY rank, rowid DESC");
        ps.setString(1, Fts5Terms.match(terms));
        ps.setString(2, Sql.jsonArray(rows));
        return candidates(ps);
    }

    private static final String MEMORIES = "memories";
    private static final String EVENTS = "events";

    /**
     * Per read (snapshot), table and scope: the scope's own BM25, kept for the rest of the read so
     * that the views of a dialogue and the evidence share its per-term searches. Weak keys: an entry
     * lives as long as its read.
     */
    private final Map<Snapshot, Map<String, ScopedBm25>> perRead =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * The scope's own BM25 over {@code table} ({@link ScopedBm25}). Where no other scope has rows in
     * the table ({@link ScopedBm25#alone}), FTS5's statistics are the scope's, and searches rank with
     * FTS5's own OR'ed search.
     */
    private ScopedBm25 scoped(Snapshot snapshot, String table, Scope scope) throws SQLException {
        Map<String, ScopedBm25> read = perRead.computeIfAbsent(snapshot, s -> new HashMap<>());
        String key = table + '\u0000' + scope.personaId() + '\u0000' + scope.projectId();
        ScopedBm25 own = read.get(key);
        if (own == null) {
            // The view, not the snapshot: a value that held its weak key would keep every read alive.
            own = new ScopedBm25(snapshot.sql(), table, scope, ScopedBm25.alone(snapshot.sql(), table, scope),
                    keptTerms.view(snapshot, table, VERSION));
            read.put(key, own);
        }
        return own;
    }

    private List<Candidate> bestMemories(Snapshot snapshot, String terms, Eligibility filter, int limit) {
        try {
            // Most matches are eligible, so first the best 2 × limit matches of the scope, unfiltered,
            // then their eligibility in one index-only read. If at least `limit` of them are
            // eligible, they are the best `limit` eligible rows: every eligible row outside them ranks
            // below them all (the order is total: score, then row). So are all the eligible ones when
            // FTS5 had no more matches. Otherwise the filter runs inside the search (L4).
            int probe = limit > Integer.MAX_VALUE / 2 ? limit : 2 * limit;
            PreparedStatement ps = snapshot.sql().prepare("SELECT rowid, rank FROM memories_fts "
                    + "WHERE memories_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ?");
            ps.setString(1, Fts5Terms.match(terms));
            ps.setInt(2, probe);
            List<Candidate> best = candidates(ps);
            List<Candidate> kept = EligibleRows.only(snapshot, best, filter);
            if (kept.size() >= limit || best.size() < probe) {
                return kept.subList(0, Math.min(limit, kept.size()));
            }
            return filteredSearch(snapshot, terms, filter, limit);
        } catch (SQLException e) {
            throw new StorageException("finding memory candidates", e);
        }
    }

    /**
     * The filter inside the search: FTS5 drives the loop (CROSS JOIN), and each match's eligibility is
     * read from the covering index memories_scope_seq, never from the memory row, before the best
     * {@code limit} are taken.
     */
    private static List<Candidate> filteredSearch(Snapshot snapshot, String terms, Eligibility filter, int limit)
            throws SQLException {
        PreparedStatement ps = snapshot.sql().prepare("SELECT f.rowid, f.rank FROM memories_fts f "
                + "CROSS JOIN memories m INDEXED BY memories_scope_seq ON m.persona_id = ? AND m.project_id = ? "
                + "AND m.seq = f.rowid WHERE memories_fts MATCH ? AND " + Sql.eligible("m", filter)
                + " ORDER BY f.rank, f.rowid DESC LIMIT ?");
        ps.setString(1, filter.scope().personaId());
        ps.setString(2, filter.scope().projectId());
        ps.setString(3, Fts5Terms.match(terms));
        int next = Sql.bindEligible(ps, 4, filter);
        ps.setInt(next, limit);
        return candidates(ps);
    }

    @Override
    public List<Candidate> events(Snapshot snapshot, String query, Scope scope, int limit) {
        List<String> searched = Fts5Terms.searchTerms(query);
        if (searched.isEmpty() || limit == 0) {
            return List.of();
        }
        try {
            ScopedBm25 own = scoped(snapshot, EVENTS, scope);
            List<String> asked = own.searched(searched);
            if (asked.isEmpty()) {
                return List.of();
            }
            List<Candidate> best;
            if (own.alone()) {
                PreparedStatement ps = snapshot.sql().prepare("SELECT rowid, rank FROM events_fts "
                        + "WHERE events_fts MATCH ? ORDER BY rank, rowid DESC LIMIT ?");
                ps.setString(1, Fts5Terms.match(Fts5Terms.literal(scope, asked)));
                ps.setInt(2, limit);
                best = candidates(ps);
            } else {
                best = own.ranked(asked).best(limit, 1);
            }
            counts.add(SearchCounts.Search.EVENTS, own.visited(asked), best.size());
            return coverage(best, own.ideal(searched));
        } catch (SQLException e) {
            throw new StorageException("finding event candidates", e);
        }
    }

    @Override
    public Coverage coverage(Snapshot snapshot, String query, Eligibility filter) {
        List<String> words = QueryCoverage.words(Fts5Terms.searchTerms(query));
        if (words.isEmpty()) {
            return Coverage.NONE;
        }
        try {
            ScopedBm25 memories = scoped(snapshot, MEMORIES, filter.scope());
            ScopedBm25 events = scoped(snapshot, EVENTS, filter.scope());
            return Coverage.of(words.size(), () -> {
                try {
                    return held(snapshot, memories, events, words, filter, Double.NaN);
                } catch (SQLException e) {
                    throw new StorageException("measuring the query's evidence", e);
                }
            }, share -> {
                try {
                    return held(snapshot, memories, events, words, filter, share) >= share;
                } catch (SQLException e) {
                    throw new StorageException("measuring the query's evidence", e);
                }
            });
        } catch (SQLException e) {
            throw new StorageException("measuring the query's evidence", e);
        }
    }

    /**
     * The most of the query one eligible memory or event of the scope holds, with {@code floor} NaN.
     * With a floor, the best share of the rows that could reach it ({@link ScopedBm25#held(List, double)}),
     * which is at least the floor if and only if the best row's is, and the events are not searched
     * once a memory holds that much.
     */
    private double held(Snapshot snapshot, ScopedBm25 memories, ScopedBm25 events, List<String> words,
                        Eligibility filter, double floor) throws SQLException {
        double best = 0;
        List<String> asked = memories.searched(words);
        RowScores sums = Double.isNaN(floor) ? memories.held(asked) : memories.held(asked, floor * memories.evidenceIdeal(words));
        List<Candidate> memory = EligibleRows.best(snapshot, sums, 1, filter, 1);
        counts.add(SearchCounts.Search.EVIDENCE, memories.visited(asked), memory.size());
        for (Candidate c : memory) {
            best = Math.max(best, c.score() / memories.evidenceIdeal(words));
        }
        if (best >= floor) {
            return best;
        }
        asked = events.searched(words);
        RowScores rows = Double.isNaN(floor) ? events.held(asked) : events.held(asked, floor * events.evidenceIdeal(words));
        List<Candidate> held = rows.best(1, 1);
        counts.add(SearchCounts.Search.EVIDENCE, events.visited(asked), held.size());
        if (!held.isEmpty()) {
            best = Math.max(best, held.get(0).score() / events.evidenceIdeal(words));
        }
        return best;
    }

    /** Candidates with their BM25 divided by the query's ideal (see {@link LexicalIndex}). */
    private static List<Candidate> coverage(List<Candidate> candidates, double ideal) {
        List<Candidate> out = new ArrayList<>(candidates.size());
        for (Candidate c : candidates) {
            out.add(new Candidate(c.rowId(), c.score() / ideal));
        }
        return out;
    }

    /**
     * BM25 of the text column's terms (k1 1.2, b 0.75: the table's rank; a row's length counts its one
     * scope token too); FTS5's is negative, so it is negated. Equal scores go to the newer row: of two versions of the same text (a fact timeline), the later one is the one more
     * likely to be current.
     */
    private static List<Candidate> candidates(PreparedStatement ps) throws SQLException {
        List<Candidate> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Candidate(rs.getLong(1), Math.max(-rs.getDouble(2), Double.MIN_VALUE)));
            }
        }
        return out;
    }

    private static void write(Sql tx, String sql, long rowId, String scope, String tokens) throws SQLException {
        PreparedStatement ps = tx.prepare(sql);
        ps.setLong(1, rowId);
        ps.setString(2, scope);
        ps.setString(3, tokens);
        ps.executeUpdate();
    }
}
