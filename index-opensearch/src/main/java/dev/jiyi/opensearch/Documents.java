package dev.jiyi.opensearch;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.index.Eligibility;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The documents of a home in the shared index, and the filters over them. They hold what the Lucene
 * index's documents hold (see {@code dev.jiyi.lucene.Documents}), with the home in front:
 *
 * <ul>
 * <li>{@code _id}: {@code <home>/m<row>} or {@code <home>/e<sequence>}, the unit of update and
 *     delete; every request about a home is routed by the home's ID, so a home's documents live on
 *     one shard and each search reads one shard;</li>
 * <li>{@code home}, {@code type}, {@code id}; {@code pool}: home, type, scope and, for a memory, live
 *     or revoked, as one keyword: the filter of every search;</li>
 * <li>{@code row}: the tie-break and "newest" order; {@code valid_at}, {@code invalid_at} in
 *     epoch microseconds (absent: never valid; open: {@link Long#MAX_VALUE});</li>
 * <li>{@link #MEMORY_TEXT}, {@link #EVENT_TEXT}: jiyi's own pieces of the text (jieba index mode,
 *     CJK unigrams, stems: what FTS5 and Lucene store), each after the home and scope, sent as a list
 *     of terms that the cluster indexes as they are (the {@code keyword} analyzer on each value, no
 *     gap between values, so positions follow and phrases match). Left out of {@code _source}: no
 *     text can be read back from the index.</li>
 * </ul>
 *
 * <p><b>Scoped terms.</b> As in the Lucene index, a term is {@code home \0 persona \0 project \0
 * piece}: its document frequency is the scope's own, read by BM25 without a count of jiyi's, and
 * a search of a small scope never reads another home's or scope's postings. No query of one home can
 * match a document of another: the terms differ, and the {@code home} filter and routing say so twice.
 */
final class Documents {

    static final String MEMORY_TEXT = "memory_text";
    static final String EVENT_TEXT = "event_text";
    static final String MEMORY = "memory";
    static final String EVENT = "event";
    static final String META = "meta";

    private Documents() {
    }

    /** The index's settings and mapping, for an index jiyi creates. */
    static ObjectNode definition(int shards, int replicas) {
        ObjectNode d = Cluster.object();
        ObjectNode settings = d.putObject("settings");
        settings.put("number_of_shards", shards);
        settings.put("number_of_replicas", replicas);
        // A purge (D1) rewrites every segment holding a deleted document, however few it holds.
        settings.put("merge.policy.expunge_deletes_allowed", 0);
        ObjectNode mappings = d.putObject("mappings");
        mappings.put("dynamic", "strict");
        mappings.putObject("_source").putArray("excludes").add(MEMORY_TEXT).add(EVENT_TEXT);
        ObjectNode p = mappings.putObject("properties");
        for (String keyword : List.of("home", "type", "id", "pool", "build")) {
            p.putObject(keyword).put("type", "keyword");
        }
        for (String number : List.of("row", "valid_at", "invalid_at", "seq")) {
            p.putObject(number).put("type", "long");
        }
        p.putObject("mark").put("type", "keyword").put("index", false).put("doc_values", false);
        for (String text : List.of(MEMORY_TEXT, EVENT_TEXT)) {
            p.putObject(text).put("type", "text").put("analyzer", "keyword").put("position_increment_gap", 0)
                    .put("index_options", "positions");
        }
        return d;
    }

    static String eventId(String home, long sequence) {
        return home + "/e" + sequence;
    }

    static String memoryId(String home, long row) {
        return home + "/m" + row;
    }

    static String metaId(String home) {
        return home + "/meta";
    }

    static ObjectNode event(String home, Event e) {
        ObjectNode d = Cluster.object();
        d.put("home", home);
        d.put("type", EVENT);
        d.put("id", EVENT + ":" + e.id());
        d.put("pool", eventPool(home, e.scope()));
        d.put("row", e.sequence());
        text(d.putArray(EVENT_TEXT), home, e.scope(), e.text());
        return d;
    }

    static ObjectNode memory(String home, Memory m) {
        ObjectNode d = Cluster.object();
        d.put("home", home);
        d.put("type", MEMORY);
        d.put("id", MEMORY + ":" + m.id());
        d.put("pool", memoryPool(home, m.scope(), !m.revoked()));
        d.put("row", m.rowId());
        if (m.validity().validAt() != null) { // SQL's NULL: never valid at any time
            d.put("valid_at", Eligibility.micros(m.validity().validAt()));
        }
        Instant invalidAt = m.validity().invalidAt();
        d.put("invalid_at", invalidAt == null ? Long.MAX_VALUE : Eligibility.micros(invalidAt));
        text(d.putArray(MEMORY_TEXT), home, m.scope(), m.searchText());
        return d;
    }

    /** The text's pieces, as FTS5 and the Lucene index store them, each a scoped term. */
    private static void text(ArrayNode out, String home, Scope scope, String text) {
        String prefix = termPrefix(home, scope);
        for (String term : ChineseTokens.terms(text)) {
            for (String piece : ChineseTokens.storedPieces(term)) {
                out.add(prefix + piece);
            }
        }
    }

    static String termPrefix(String home, Scope scope) {
        return home + '\u0000' + scope.personaId() + '\u0000' + scope.projectId() + '\u0000';
    }

    static List<String> scoped(String home, Scope scope, List<String> pieces) {
        String prefix = termPrefix(home, scope);
        List<String> out = new ArrayList<>(pieces.size());
        for (String p : pieces) {
            out.add(prefix + p);
        }
        return out;
    }

    static String eventPool(String home, Scope scope) {
        return home + '\u0000' + EVENT + '\u0000' + scope.personaId() + '\u0000' + scope.projectId();
    }

    static String memoryPool(String home, Scope scope, boolean live) {
        return home + '\u0000' + MEMORY + '\u0000' + scope.personaId() + '\u0000' + scope.projectId()
                + (live ? "\u0000live" : "\u0000revoked");
    }

    /** A filter clause: one term of a keyword field. */
    static ObjectNode term(String field, String value) {
        ObjectNode q = Cluster.object();
        q.putObject("term").put(field, value);
        return q;
    }

    /**
     * The memories {@code filter} admits: its scope's live pool and, unless history is included,
     * {@code valid_at <= at < invalid_at} (T3) in the authority's microseconds.
     */
    static ObjectNode eligible(String home, Eligibility filter) {
        ObjectNode q = Cluster.object();
        ArrayNode must = q.putObject("bool").putArray("filter");
        must.add(term("pool", memoryPool(home, filter.scope(), true)));
        if (!filter.includeHistory()) {
            long at = Eligibility.micros(filter.at());
            must.add(range("valid_at", "lte", at));
            must.add(range("invalid_at", "gte", at == Long.MAX_VALUE ? at : at + 1));
        }
        return q;
    }

    private static ObjectNode range(String field, String op, long value) {
        ObjectNode q = Cluster.object();
        q.putObject("range").putObject(field).put(op, value);
        return q;
    }

}
