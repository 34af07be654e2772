package dev.jiyi.lucene;

import dev.jiyi.authority.Event;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.Snapshot;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.Eligibility;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The Lucene documents, one per memory and one per raw event, and the filters over them. A document
 * holds what searching and filtering need and nothing to read back: no field is stored, so no text
 * lives in the index's stored-field files, and after a deletion is merged away no term of the deleted
 * text remains anywhere (D1).
 *
 * <ul>
 * <li>{@code key}: {@code m<row>} or {@code e<sequence>}, the unit of update and delete</li>
 * <li>{@code id}, {@code type} ({@code memory}, {@code event}), {@code scope} (persona and project)</li>
 * <li>{@code pool}: type, scope and, for a memory, live or revoked, as one keyword with doc values:
 *     the filter clause of searches ({@link #eligible}, {@link #events}), and what a search of a
 *     scope's memories at any time excludes ({@link #revoked})</li>
 * <li>{@code row}: the memory's row or the event's sequence (points and doc values: the tie-break
 *     order and the "newest" rule)</li>
 * <li>memories: {@code live} when not revoked, {@code valid_at} and {@code invalid_at} in epoch
 *     microseconds (open is {@link Long#MAX_VALUE}), {@code event} the source event's ID, and one
 *     vector field per embedding fingerprint and dimension</li>
 * <li>{@link #MEMORY_TEXT} and {@link #EVENT_TEXT}: analyzed, positions kept (phrases), not stored;
 *     two fields, so that BM25's statistics are those of memories and of events apart, as in FTS5's
 *     two tables. Each term is the document's scope followed by the analyzed piece
 *     ({@link #text(String, Scope, String)}): see below.</li>
 * </ul>
 *
 * <p><b>Scoped terms.</b> A scope is ranked as if it had an index of its own (R11), and a search
 * reads only its scope. Both follow from putting the scope into every text term
 * ({@code persona \0 project \0 piece}): a term's postings are then the scope's documents holding
 * the piece, its document frequency is the scope's own (Lucene's BM25 reads it without a count of
 * ours), and a search of a small scope in a large archive reads no posting of another scope. The
 * terms dictionary shares the prefix among a scope's terms (its blocks store common prefixes once),
 * and the postings are as many as without it. What the scope cannot give is the length totals:
 * {@link ScopedSearcher} scales the field's.
 */
final class Documents {

    static final String KEY = "key";
    static final String ID = "id";
    static final String TYPE = "type";
    static final String SCOPE = "scope";
    static final String ROW = "row";
    static final String LIVE = "live";
    static final String VALID_AT = "valid_at";
    static final String INVALID_AT = "invalid_at";
    static final String SOURCE_EVENT = "event";
    static final String POOL = "pool";
    static final String MEMORY_TEXT = "memory_text";
    static final String EVENT_TEXT = "event_text";

    static final String MEMORY = "memory";
    static final String EVENT = "event";

    /** Analyzed for BM25 with positions (query terms of several pieces are phrases); never stored. */
    private static final FieldType TEXT = new FieldType();

    static {
        TEXT.setTokenized(true);
        TEXT.setStored(false);
        TEXT.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS);
        TEXT.freeze();
    }

    private Documents() {
    }

    static Term memoryKey(long row) {
        return new Term(KEY, "m" + row);
    }

    static Term eventKey(long sequence) {
        return new Term(KEY, "e" + sequence);
    }

    static Term id(String type, String id) {
        return new Term(ID, type.charAt(0) + id);
    }

    static Document event(Event e) {
        Document d = new Document();
        d.add(new StringField(KEY, eventKey(e.sequence()).text(), Field.Store.NO));
        d.add(new StringField(ID, id(EVENT, e.id()).text(), Field.Store.NO));
        d.add(new StringField(TYPE, EVENT, Field.Store.NO));
        d.add(new StringField(SCOPE, scope(e.scope()), Field.Store.NO));
        d.add(new LongField(ROW, e.sequence(), Field.Store.NO));
        pool(d, EVENT + '\u0000' + scope(e.scope()));
        d.add(new ScopedText(EVENT_TEXT, e.text(), e.scope()));
        return d;
    }

    static Document memory(Memory m, List<VectorCache.StoredVector> vectors) {
        Document d = new Document();
        d.add(new StringField(KEY, memoryKey(m.rowId()).text(), Field.Store.NO));
        d.add(new StringField(ID, id(MEMORY, m.id()).text(), Field.Store.NO));
        d.add(new StringField(TYPE, MEMORY, Field.Store.NO));
        d.add(new StringField(SCOPE, scope(m.scope()), Field.Store.NO));
        d.add(new LongField(ROW, m.rowId(), Field.Store.NO));
        d.add(new StringField(SOURCE_EVENT, m.eventId(), Field.Store.NO));
        if (!m.revoked()) {
            d.add(new StringField(LIVE, "1", Field.Store.NO));
        }
        pool(d, livePool(m.scope(), !m.revoked()));
        if (m.validity().validAt() != null) { // SQL's NULL: never valid at any time
            d.add(new LongField(VALID_AT, Eligibility.micros(m.validity().validAt()), Field.Store.NO));
        }
        Instant invalidAt = m.validity().invalidAt();
        d.add(new LongField(INVALID_AT, invalidAt == null ? Long.MAX_VALUE : Eligibility.micros(invalidAt), Field.Store.NO));
        d.add(new ScopedText(MEMORY_TEXT, m.searchText(), m.scope()));
        for (VectorCache.StoredVector v : vectors) {
            if (v.vector().length > 0) {
                d.add(new KnnFloatVectorField(vectorField(v.fingerprint(), v.vector().length), v.vector(),
                        VectorSimilarityFunction.DOT_PRODUCT));
            }
        }
        return d;
    }

    /**
     * The pool of a document: its type, scope and, for a memory, whether it is live, as one keyword
     * with doc values. The eligibility filter is then one clause that can either lead the search
     * (its postings) or check the documents another clause proposes (its doc values, two-phase), as
     * Lucene finds cheaper; five clauses over the same documents cost several times the search.
     */
    private static void pool(Document d, String pool) {
        d.add(new StringField(POOL, pool, Field.Store.NO));
        d.add(new SortedDocValuesField(POOL, new BytesRef(pool)));
    }

    static String livePool(Scope scope, boolean live) {
        return MEMORY + '\u0000' + scope(scope) + (live ? "\u0000live" : "\u0000revoked");
    }

    private static Query inPool(String pool) {
        return new IndexOrDocValuesQuery(new TermQuery(new Term(POOL, pool)),
                SortedDocValuesField.newSlowExactQuery(POOL, new BytesRef(pool)));
    }

    /**
     * The memories {@code filter} admits, as filter clauses (no score): its scope, not revoked and,
     * unless history is included, {@code valid_at <= at < invalid_at} (T3), in the authority's
     * microsecond precision. The two times are checked on their doc values, document by document,
     * for the documents the query's terms propose: almost every memory is valid now, so a range
     * over the points would collect nearly the whole index before the search starts, and two
     * exclusions (the few memories not valid now) would cut the search into as many pieces as there
     * are exceptions. Exclusions inside this filter, found on the points, were measured too
     * (2026-12-05, realistic archive of 1,000,000 turns): known-item recall's mean went from 15.9 to
     * 21.9 ms and topical from 17.7 to 27.3, since one memory in 40 is superseded and each search
     * gathers those of every segment before it starts. Searches use {@link EligibleSets}, which keeps
     * the outcome of these checks per segment while the query time stays where it is; this form is
     * what it falls back on, and what it is tested against.
     */
    static Query eligible(Eligibility filter) {
        BooleanQuery.Builder b = new BooleanQuery.Builder()
                .add(inPool(livePool(filter.scope(), true)), BooleanClause.Occur.FILTER);
        if (!filter.includeHistory()) {
            long at = Eligibility.micros(filter.at());
            b.add(SortedNumericDocValuesField.newSlowRangeQuery(VALID_AT, Long.MIN_VALUE, at), BooleanClause.Occur.FILTER);
            b.add(SortedNumericDocValuesField.newSlowRangeQuery(INVALID_AT, at == Long.MAX_VALUE ? at : at + 1,
                    Long.MAX_VALUE), BooleanClause.Occur.FILTER);
        }
        return b.build();
    }

    /** The scope's revoked memories (R8): what a search of its memories at any time leaves out. */
    static Query revoked(Scope scope) {
        return new TermQuery(new Term(POOL, livePool(scope, false)));
    }

    /** The raw events of a scope. */
    static Query events(Scope scope) {
        return inPool(EVENT + '\u0000' + scope(scope));
    }

    /**
     * How many documents of {@code field}'s type the scope has (deleted ones not yet merged away
     * included, as Lucene's own statistics count them): the events of its pool, or its live and
     * revoked memories.
     */
    static long scopeDocuments(IndexReader reader, String field, Scope scope) throws IOException {
        if (field.equals(EVENT_TEXT)) {
            return reader.docFreq(new Term(POOL, EVENT + '\u0000' + scope(scope)));
        }
        return reader.docFreq(new Term(POOL, livePool(scope, true))) + reader.docFreq(new Term(POOL, livePool(scope, false)));
    }

    /** A text term: {@code piece} as the documents of {@code scope} hold it in {@code field}. */
    static Term text(String field, Scope scope, String piece) {
        return new Term(field, termPrefix(scope) + piece);
    }

    /** What every text term of a scope's documents starts with: the scope, and a separator no piece precedes. */
    static String termPrefix(Scope scope) {
        return scope(scope) + '\u0000';
    }

    /**
     * A text field whose terms are its analyzer's, each after the document's scope
     * ({@link #termPrefix}). The analyzer's stream is asked for as the writer indexes the field, the
     * way a field of text is, so an analyzer's reused stream serves one field at a time.
     */
    private static final class ScopedText extends Field {

        private final String prefix;

        ScopedText(String name, String text, Scope scope) {
            super(name, text, TEXT);
            this.prefix = termPrefix(scope);
        }

        @Override
        public TokenStream tokenStream(Analyzer analyzer, TokenStream reuse) {
            return new Prefixed(analyzer.tokenStream(name(), stringValue()), prefix);
        }
    }

    /** Each term of a stream after a fixed prefix; positions and offsets are the stream's. */
    private static final class Prefixed extends TokenFilter {

        private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
        private final char[] prefix;

        Prefixed(TokenStream in, String prefix) {
            super(in);
            this.prefix = prefix.toCharArray();
        }

        @Override
        public boolean incrementToken() throws IOException {
            if (!input.incrementToken()) {
                return false;
            }
            int length = term.length();
            char[] buffer = term.resizeBuffer(prefix.length + length);
            System.arraycopy(buffer, 0, buffer, prefix.length, length);
            System.arraycopy(prefix, 0, buffer, 0, prefix.length);
            term.setLength(prefix.length + length);
            return true;
        }
    }

    /** Persona and project, separated by a character neither may contain. */
    static String scope(Scope scope) {
        return scope.personaId() + '\u0000' + scope.projectId();
    }

    /**
     * The vector field of a fingerprint and dimension (V1: vectors of different models are never
     * compared): a short hash, since a fingerprint names a URL and a model.
     */
    static String vectorField(String fingerprint, int dimension) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(fingerprint.getBytes(StandardCharsets.UTF_8));
            return "vector." + HexFormat.of().formatHex(digest, 0, 8) + "." + dimension;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }


    /** The documents of these memories, each with its stored vectors, in their order. */
    static List<Document> memories(Snapshot s, List<Memory> memories) {
        List<Long> rows = new ArrayList<>(memories.size());
        for (Memory m : memories) {
            rows.add(m.rowId());
        }
        Map<Long, List<VectorCache.StoredVector>> vectors = new HashMap<>();
        if (!rows.isEmpty()) {
            for (VectorCache.StoredVector v : s.vectorsByMemoryRow(rows)) {
                vectors.computeIfAbsent(v.memoryRow(), k -> new ArrayList<>()).add(v);
            }
        }
        List<Document> docs = new ArrayList<>(memories.size());
        for (Memory m : memories) {
            docs.add(Documents.memory(m, vectors.getOrDefault(m.rowId(), List.of())));
        }
        return docs;
    }
}
