package dev.jiyi.opensearch;

import dev.jiyi.analysis.QueryCoverage;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Candidate;
import dev.jiyi.authority.index.Eligibility;
import dev.jiyi.authority.index.SearchCounts;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * BM25 search of a home's documents, scored as the Lucene index scores them (R11): the scope's
 * statistics, coverage over the query's ideal. The cluster computes BM25 over its shard, whose
 * collection is every home routed there; each query term's weight is scaled by the scope's IDF
 * over the shard's ({@link #boost}), so a document's score is the scope's BM25. The term statistics
 * come from one {@code _termvectors} request per search (the shard's document frequencies of the
 * scoped terms, the scope's documents and the field's totals, counted as Lucene counts them, deleted
 * documents not yet merged away included). One difference remains and is documented: document
 * lengths are compared with the shard's average length, where the Lucene index uses the home's.
 */
final class Searcher {

    /** Lucene's BM25 term saturation, the cluster's default similarity. */
    private static final double K1 = 1.2;
    /** How many matches a search counts exactly (B1's hits visited), past which it says "at least". */
    private static final int COUNTED = 10_000;

    private final Cluster cluster;
    private final String index;
    /** The home's ID now: a copied home takes a new one at its first follow. */
    private final java.util.function.Supplier<String> homeId;
    final SearchCounts counts = new SearchCounts();
    /**
     * Term statistics read since the index last changed, by field and scope: the searches of one
     * recall (one snapshot, one follow) ask about the same terms several times. {@link #forget}
     * drops them whenever a follow may have written.
     */
    private final Map<String, Stats> known = new HashMap<>();

    Searcher(Cluster cluster, String index, java.util.function.Supplier<String> homeId) {
        this.cluster = cluster;
        this.index = index;
        this.homeId = homeId;
    }

    /** The home's shard, and always the same copy of it, so that statistics and scores agree. */
    private Map<String, String> routed() {
        String home = homeId.get();
        return Map.of("routing", home, "preference", home);
    }

    /** The statistics of one field for one scope: what Lucene's {@code ScopedSearcher} reads. */
    private record Stats(long shardDocs, long scopeDocs, Map<String, Long> docFreq) {

        long df(String scopedPiece) {
            return docFreq.getOrDefault(scopedPiece, 0L);
        }
    }

    /** Forgets the statistics read so far (the index may have changed). */
    void forget() {
        known.clear();
    }

    /** The statistics of these phrases' pieces, read once per change of the index. */
    private Stats stats(String field, Scope scope, List<List<String>> phrases) throws IOException {
        String key = field + '\u0001' + Documents.termPrefix(homeId.get(), scope);
        Stats have = known.get(key);
        LinkedHashSet<String> pieces = new LinkedHashSet<>();
        for (List<String> p : phrases) {
            pieces.addAll(Documents.scoped(homeId.get(), scope, p));
        }
        if (have != null && have.docFreq().keySet().containsAll(pieces)) {
            return have;
        }
        Stats read = read(field, scope, pieces);
        if (have != null) {
            read.docFreq().putAll(have.docFreq());
        }
        known.put(key, read);
        return read;
    }

    private Stats read(String field, Scope scope, LinkedHashSet<String> pieces) throws IOException {
        boolean events = field.equals(Documents.EVENT_TEXT);
        List<String> pools = events ? List.of(Documents.eventPool(homeId.get(), scope))
                : List.of(Documents.memoryPool(homeId.get(), scope, true), Documents.memoryPool(homeId.get(), scope, false));
        ObjectNode body = Cluster.object();
        ObjectNode doc = body.putObject("doc");
        ArrayNode text = doc.putArray(field);
        pieces.forEach(text::add);
        ArrayNode pool = doc.putArray("pool");
        pools.forEach(pool::add);
        body.putArray("fields").add(field).add("pool");
        body.put("term_statistics", true).put("field_statistics", true).put("positions", false)
                .put("offsets", false).put("payloads", false);
        JsonNode r = cluster.call("reading term statistics", "POST", "/" + index + "/_termvectors", routed(), body);
        JsonNode vectors = r.path("term_vectors");
        long shardDocs = vectors.path(field).path("field_statistics").path("doc_count").asLong(0);
        Map<String, Long> df = new HashMap<>();
        for (String piece : pieces) {
            df.put(piece, 0L); // absent from the answer: no document holds it
        }
        vectors.path(field).path("terms").properties().forEach(e -> df.put(e.getKey(), e.getValue().path("doc_freq").asLong(0)));
        long scopeDocs = 0;
        for (String p : pools) {
            scopeDocs += vectors.path("pool").path("terms").path(p).path("doc_freq").asLong(0);
        }
        return new Stats(shardDocs, scopeDocs, df);
    }

    /** The scope's documents of {@code field} holding the phrase (a term of several pieces). */
    private long phraseCount(String field, Scope scope, List<String> pieces) throws IOException {
        ObjectNode body = Cluster.object();
        body.set("query", termQuery(field, scope, pieces));
        return cluster.call("counting a phrase", "POST", "/" + index + "/_count", routed(), body).path("count").asLong(0);
    }

    /** A term of the query: one scoped piece, or its pieces in a row (a phrase, as FTS5 searches it). */
    private ObjectNode termQuery(String field, Scope scope, List<String> pieces) {
        return termQuery(field, scope, pieces, 1f);
    }

    /** {@link #termQuery(String, Scope, List)} with its score multiplied by {@code boost}. */
    private ObjectNode termQuery(String field, Scope scope, List<String> pieces, float boost) {
        List<String> scoped = Documents.scoped(homeId.get(), scope, pieces);
        ObjectNode q = Cluster.object();
        if (scoped.size() == 1) {
            q.putObject("term").putObject(field).put("value", scoped.getFirst()).put("boost", boost);
            return q;
        }
        ObjectNode near = q.putObject("span_near");
        near.put("boost", boost);
        ArrayNode clauses = near.putArray("clauses");
        for (String s : scoped) {
            clauses.addObject().putObject("span_term").put(field, s);
        }
        near.put("slop", 0).put("in_order", true);
        return q;
    }

    List<Candidate> memories(List<List<String>> phrases, Eligibility filter, int limit) throws IOException {
        return ranked(SearchCounts.Search.MEMORIES, Documents.MEMORY_TEXT, Documents.eligible(homeId.get(), filter),
                filter.scope(), phrases, limit);
    }

    /**
     * R9: those of {@code rows} that match, each scored as {@link #memories} scores it at any time:
     * the same search, filtered to the rows, at most {@link #ROWS_A_SEARCH} at a time (a terms
     * filter refuses more than the cluster's {@code index.max_terms_count}, 65,536 by default).
     */
    List<Candidate> memoriesAmong(List<List<String>> phrases, Scope scope, Collection<Long> rows, int limit)
            throws IOException {
        List<Long> all = List.copyOf(new LinkedHashSet<>(rows));
        List<Candidate> out = new ArrayList<>();
        for (int from = 0; from < all.size(); from += ROWS_A_SEARCH) {
            ObjectNode filter = Cluster.object();
            ArrayNode both = filter.putObject("bool").putArray("filter");
            both.add(Documents.eligible(homeId.get(), Eligibility.anyTime(scope)));
            ArrayNode values = both.addObject().putObject("terms").putArray("row");
            all.subList(from, Math.min(all.size(), from + ROWS_A_SEARCH)).forEach(values::add);
            out.addAll(ranked(SearchCounts.Search.MEMORIES, Documents.MEMORY_TEXT, filter, scope, phrases, limit));
        }
        out.sort(Candidate.BEST_FIRST);
        return out.size() > limit ? List.copyOf(out.subList(0, limit)) : out;
    }

    /** Rows a search of {@link #memoriesAmong} filters by. */
    static final int ROWS_A_SEARCH = 10_000;

    List<Candidate> events(List<List<String>> phrases, Scope scope, int limit) throws IOException {
        return ranked(SearchCounts.Search.EVENTS, Documents.EVENT_TEXT,
                Documents.term("pool", Documents.eventPool(homeId.get(), scope)), scope, phrases, limit);
    }

    /** The phrases searched ({@link QueryCoverage#searched}, the rule every index follows). */
    private List<List<String>> searched(String field, Scope scope, Stats stats, List<List<String>> phrases)
            throws IOException {
        try {
            return QueryCoverage.searchedPieces(phrases, pieces -> {
                if (pieces.size() == 1) {
                    return stats.df(Documents.scoped(homeId.get(), scope, pieces).getFirst());
                }
                try {
                    return phraseCount(field, scope, pieces);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private List<Candidate> ranked(SearchCounts.Search search, String field, ObjectNode filter, Scope scope,
                                   List<List<String>> phrases, int limit) throws IOException {
        Stats stats = stats(field, scope, phrases);
        List<List<String>> asked = searched(field, scope, stats, phrases);
        if (asked.isEmpty() || stats.scopeDocs() == 0) {
            return List.of();
        }
        double ideal = ideal(weights(scope, stats, phrases));
        ObjectNode body = Cluster.object();
        body.put("size", limit);
        body.put("_source", false);
        body.put("track_total_hits", COUNTED);
        ObjectNode bool = body.putObject("query").putObject("bool");
        ArrayNode should = bool.putArray("should");
        for (List<String> pieces : asked) {
            should.add(termQuery(field, scope, pieces, (float) boost(scope, stats, pieces)));
        }
        bool.put("minimum_should_match", 1);
        bool.putArray("filter").add(filter);
        ArrayNode sort = body.putArray("sort");
        sort.addObject().put("_score", "desc");
        sort.addObject().put("row", "desc");
        JsonNode r = cluster.call("searching", "POST", "/" + index + "/_search", routed(), body);
        JsonNode hits = r.path("hits").path("hits");
        List<Candidate> out = new ArrayList<>(hits.size());
        for (JsonNode hit : hits) {
            JsonNode sorted = hit.path("sort");
            out.add(new Candidate(sorted.get(1).asLong(), sorted.get(0).asDouble() / ideal));
        }
        counts.add(search, Math.max(out.size(), r.path("hits").path("total").path("value").asLong(out.size())), out.size());
        return out;
    }

    /**
     * The weight that makes the shard's BM25 of a term the scope's: the scope's IDF over the
     * shard's (for a phrase, each the sum over its pieces, as Lucene weighs a phrase).
     */
    private double boost(Scope scope, Stats stats, List<String> pieces) {
        double scopeIdf = 0;
        double shardIdf = 0;
        for (String piece : Documents.scoped(homeId.get(), scope, pieces)) {
            long n = stats.df(piece);
            scopeIdf += lnIdf(stats.scopeDocs(), n);
            shardIdf += lnIdf(stats.shardDocs(), n);
        }
        return shardIdf <= 0 ? 1 : scopeIdf / shardIdf;
    }

    private static double lnIdf(long docs, long n) {
        long total = Math.max(docs, n);
        return Math.log(1 + (total - n + 0.5) / (n + 0.5));
    }

    /** Lucene's BM25 weight of a term {@code n} of {@code docs} documents hold, once in a document of average length. */
    private static double idf(long docs, long n) {
        return lnIdf(docs, n) / (1 + K1);
    }

    private record TermWeights(Map<String, Double> held, Map<String, Double> absent) {
    }

    /** Each term's weight at one occurrence (held and absent ones), as the Lucene index counts them. */
    private TermWeights weights(Scope scope, Stats stats, List<List<String>> phrases) {
        Map<String, Double> held = new HashMap<>();
        Map<String, Double> absent = new HashMap<>();
        for (List<String> pieces : phrases) {
            long n = Long.MAX_VALUE;
            for (String piece : Documents.scoped(homeId.get(), scope, pieces)) {
                n = Math.min(n, stats.df(piece));
            }
            (n > 0 ? held : absent).put(String.join(" ", pieces), idf(stats.scopeDocs(), Math.max(1, n)));
        }
        return new TermWeights(held, absent);
    }

    private static double ideal(TermWeights w) {
        return QueryCoverage.ideal(w.held(), w.absent());
    }

    /**
     * The most of the query one eligible memory or event of the scope holds, in one search of both
     * fields: each word a document holds counts its evidence weight once, over the query's evidence
     * ideal in the document's own field ({@code LexicalIndex#coverage}).
     */
    double held(List<List<String>> words, Eligibility filter) throws IOException {
        ArrayNode any = Cluster.JSON.createArrayNode();
        ArrayNode eligible = Cluster.JSON.createArrayNode();
        if (held(Documents.MEMORY_TEXT, filter.scope(), words, any)) {
            eligible.add(Documents.eligible(homeId.get(), filter));
        }
        if (held(Documents.EVENT_TEXT, filter.scope(), words, any)) {
            eligible.add(Documents.term("pool", Documents.eventPool(homeId.get(), filter.scope())));
        }
        if (eligible.isEmpty()) {
            return 0;
        }
        ObjectNode body = Cluster.object();
        body.put("size", 1);
        body.put("_source", false);
        body.put("track_total_hits", COUNTED);
        ObjectNode bool = body.putObject("query").putObject("bool");
        bool.set("should", any);
        bool.put("minimum_should_match", 1);
        ObjectNode either = Cluster.object();
        either.putObject("bool").set("should", eligible);
        bool.putArray("filter").add(either);
        JsonNode r = cluster.call("searching for evidence", "POST", "/" + index + "/_search", routed(), body);
        JsonNode hits = r.path("hits").path("hits");
        counts.add(SearchCounts.Search.EVIDENCE, Math.max(hits.size(), r.path("hits").path("total").path("value").asLong(0)),
                hits.size());
        return hits.isEmpty() ? 0 : hits.get(0).path("_score").asDouble();
    }

    private boolean held(String field, Scope scope, List<List<String>> words, ArrayNode any) throws IOException {
        Stats stats = stats(field, scope, words);
        if (stats.scopeDocs() == 0) {
            return false;
        }
        TermWeights w = weights(scope, stats, words);
        if (w.held().isEmpty()) {
            return false;
        }
        long docs = stats.scopeDocs();
        double one = idf(docs, 1);
        double ideal = QueryCoverage.evidenceIdeal(w.held(), w.absent().keySet(), one, docs);
        boolean added = false;
        for (List<String> pieces : searched(field, scope, stats, words)) {
            String word = String.join(" ", pieces);
            Double idf = w.held().get(word);
            if (idf != null) {
                double weight = QueryCoverage.evidenceWeight(word, idf, one, docs);
                ObjectNode clause = Cluster.object();
                clause.putObject("constant_score").put("boost", (float) (weight / ideal))
                        .set("filter", termQuery(field, scope, pieces));
                any.add(clause);
                added = true;
            }
        }
        return added;
    }
}
