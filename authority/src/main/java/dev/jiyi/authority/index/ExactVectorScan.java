package dev.jiyi.authority.index;

import dev.jiyi.authority.Snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The SQLite implementation of {@link VectorIndex}: an exact scan of the vector cache, comparing
 * the query with every eligible vector of its fingerprint (deep mode), or with those of the newest
 * eligible memories (semantic mode, R5). Exact, so its neighbours are the true nearest; linear in
 * the vectors compared (about 175 ms for 100,000 vectors of 512 dimensions on 2 cores).
 */
public final class ExactVectorScan implements VectorIndex {

    @Override
    public String name() {
        return "exact";
    }

    @Override
    public Neighbours nearest(Snapshot snapshot, VectorQuery q) {
        float[] query = q.vector();
        // The best k so far, worst on top; of equal similarities the older row is the worse.
        PriorityQueue<Candidate> top = new PriorityQueue<>(Candidate.BEST_FIRST.reversed());
        long compared = snapshot.scanVectors(q.filter(), q.fingerprint(), q.newest(), (row, vector) -> {
            if (vector.length != query.length) {
                return;
            }
            double c = dot(query, vector);
            if (c > q.minSimilarity()) {
                top.add(new Candidate(row, c));
                if (top.size() > q.k()) {
                    top.poll();
                }
            }
        });
        List<Candidate> nearest = new ArrayList<>(top);
        nearest.sort(Candidate.BEST_FIRST);
        return new Neighbours(nearest, compared);
    }

    /** The dot product: the cosine similarity of unit vectors. */
    public static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
