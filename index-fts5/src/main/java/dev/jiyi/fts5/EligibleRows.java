package dev.jiyi.fts5;

import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.Sql;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The best rows of a ranking whose memories an {@link Eligibility} admits (L4): the eligibility of a
 * slice of candidates at a time, read from the covering index {@code memories_scope_seq}, never
 * from the memory rows.
 */
final class EligibleRows {

    private EligibleRows() {
    }

    /**
     * The best {@code limit} eligible rows holding at least {@code least} terms: most rows are
     * eligible, so the best 2 × limit (64 at least) first, the rest sorted only if too few pass.
     */
    static List<Candidate> best(Snapshot snapshot, RowScores scores, int least, Eligibility filter, int limit)
            throws SQLException {
        int probe = Math.max(64, limit > Integer.MAX_VALUE / 2 ? limit : 2 * limit);
        List<Candidate> best = scores.best(probe, least);
        List<Candidate> kept = only(snapshot, best, filter);
        if (kept.size() >= limit || best.size() < probe) {
            return kept.subList(0, Math.min(limit, kept.size()));
        }
        return best(snapshot, scores.best(Integer.MAX_VALUE, least), filter, limit);
    }

    /**
     * The first {@code limit} of {@code ranked} whose memories {@code filter} admits, read from the
     * covering index a slice at a time.
     */
    static List<Candidate> best(Snapshot snapshot, List<Candidate> ranked, Eligibility filter, int limit)
            throws SQLException {
        List<Candidate> out = new ArrayList<>(Math.min(limit, ranked.size()));
        int slice = Math.max(64, limit > Integer.MAX_VALUE / 2 ? limit : 2 * limit);
        for (int from = 0; from < ranked.size() && out.size() < limit; from += slice) {
            for (Candidate c : only(snapshot, ranked.subList(from, Math.min(ranked.size(), from + slice)), filter)) {
                if (out.size() == limit) {
                    break;
                }
                out.add(c);
            }
        }
        return out;
    }

    /** The candidates whose memories {@code filter} admits, in their order, read from the covering index. */
    static List<Candidate> only(Snapshot snapshot, List<Candidate> candidates, Eligibility filter)
            throws SQLException {
        if (candidates.isEmpty()) {
            return candidates;
        }
        List<Long> rows = new ArrayList<>(candidates.size());
        for (Candidate c : candidates) {
            rows.add(c.rowId());
        }
        PreparedStatement ps = snapshot.sql().prepare("SELECT m.seq FROM memories m INDEXED BY memories_scope_seq "
                + "WHERE m.seq IN (SELECT value FROM json_each(?)) AND " + Sql.eligible("m", filter));
        ps.setString(1, Sql.jsonArray(rows));
        Sql.bindEligible(ps, 2, filter);
        Set<Long> admitted = new HashSet<>(Sql.list(ps, rs -> rs.getLong(1)));
        List<Candidate> out = new ArrayList<>(admitted.size());
        for (Candidate c : candidates) {
            if (admitted.contains(c.rowId())) {
                out.add(c);
            }
        }
        return out;
    }
}
