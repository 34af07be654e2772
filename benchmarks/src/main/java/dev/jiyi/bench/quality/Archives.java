package dev.jiyi.bench.quality;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.bench.CachedArchive;
import dev.jiyi.engine.Home;
import dev.jiyi.engine.IndexKind;
import dev.jiyi.engine.Jiyi;
import dev.jiyi.engine.Progress;
import dev.jiyi.lucene.Analysis;
import dev.jiyi.lucene.LuceneBackend;
import dev.jiyi.lucene.LuceneIndex;
import dev.jiyi.lucene.LuceneOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The archives {@code bench recall} measures: a scenario loaded as a host would load it (events,
 * memories, then corrections and deletions), grown with distractors, cached by content, size and
 * seed ({@link #prepare}); and the index a row is measured on ({@link Indexed}).
 */
final class Archives {

    private Archives() {
    }

    /**
     * An archive ready to query: its home, its memories when this run loaded them (else null), and
     * the events corrections made, each to the event it corrected (a corrected memory quotes an
     * event of its own, and stands for the original one's evidence).
     */
    record Prepared(Home home, List<Memory> memories, Map<String, String> aliases, int size, Path temporary)
            implements AutoCloseable {

        @Override
        public void close() {
            if (temporary != null) {
                CachedArchive.deleteTree(temporary);
            }
        }
    }

    /**
     * The scenario's archive grown to {@code size} memories (0: the scenario alone): from the cache
     * when it holds one, keyed by the scenario's content, the size and the seed; else built now.
     */
    static Prepared prepare(Scenario s, int size, RecallQuality.Plan plan, java.io.PrintStream log) throws IOException {
        int own = Growth.rows(s);
        int extra = size == 0 ? 0 : size - own;
        int total = own + extra;
        List<Memory> loaded = new ArrayList<>();
        java.util.function.Consumer<CachedArchive> build = archive -> {
            Map<String, String> aliases = new TreeMap<>();
            try (Jiyi jiyi = Jiyi.open(archive.home());
                 Progress progress = Progress.onStderr(s.name() + ": loading", s.events().size() + total, plan.quiet())) {
                loaded.addAll(load(jiyi.authority(), s, progress, aliases));
                Growth.grow(jiyi.authority(), s, extra, plan.seed(), plan.growth(), progress);
            }
            aliases.forEach((from, to) -> archive.note(ALIAS + from, to));
        };
        String what = String.format(Locale.ROOT, "%s with %,d memories", s.name(), total);
        if (plan.archives() == null) {
            Path dir = Files.createTempDirectory("jiyi-quality-");
            CachedArchive archive = CachedArchive.open(dir, "archive", what, build, new java.io.PrintStream(
                    java.io.OutputStream.nullOutputStream()));
            return new Prepared(archive.home(), loaded, aliases(archive), total, dir);
        }
        String name = s.name() + "-" + (size == 0 ? "base" : size + "-s" + plan.seed()
                + (plan.growth() == Growth.Corpus.CHAT ? "" : "-" + plan.growth().code)) + "-" + fingerprint(s);
        CachedArchive archive = CachedArchive.open(plan.archives(), name, what, build, log);
        return new Prepared(archive.home(), archive.reused() ? null : loaded, aliases(archive), total, null);
    }

    /**
     * Of the environment, only what says where an OpenSearch cluster is ({@code --index opensearch}):
     * every other setting of a measured home is its config file's, so a user's settings never change
     * a benchmark's figures.
     */
    static Map<String, String> clusterOnly(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("JIYI_INDEX_OPENSEARCH_") || k.startsWith("JIYI_OPENSEARCH_")) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The prefix of an alias's key in the archive's properties. */
    private static final String ALIAS = "alias.";

    private static Map<String, String> aliases(CachedArchive archive) {
        return archive.notes(ALIAS);
    }

    /** What a cached archive was made from: the scenario's content and how growth works. */
    static String fingerprint(Scenario s) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(("growth " + Growth.VERSION + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            for (Object o : List.of(s.events(), s.memories(), s.changes())) {
                sha.update(o.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            return java.util.HexFormat.of().formatHex(sha.digest(), 0, 6);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The index a row is measured on; closes what it opened (the smartcn Lucene index). */
    record Indexed(RecallIndex index, AutoCloseable owned) implements AutoCloseable {

        /** @param label what progress on standard error is labeled with (none when {@code quiet}) */
        static Indexed open(Jiyi jiyi, Home home, String name, String label, boolean quiet) {
            Authority authority = jiyi.authority();
            return switch (name) {
                case "fts5" -> new Indexed(jiyi.recallIndex("fts5"), null);
                case "lucene" -> {
                    // Caught up now, so that building it is not counted as the first query's latency.
                    dev.jiyi.bench.LuceneRecallHarness.catchUp(jiyi.backend(IndexKind.LUCENE, LuceneBackend.class).index(), authority, label + ": lucene index", quiet);
                    yield new Indexed(jiyi.recallIndex("lucene"), null);
                }
                case "opensearch" -> {
                    // The cluster named by index.opensearch.url (JIYI_INDEX_OPENSEARCH_URL); caught up now too.
                    dev.jiyi.opensearch.OpenSearchIndex os = jiyi.backend(IndexKind.OPENSEARCH,
                            dev.jiyi.opensearch.OpenSearchBackend.class).index();
                    long started = System.nanoTime();
                    while (os.catchUp(authority).behind() > 0) {
                        // one time budget a round
                    }
                    if (!quiet) {
                        System.err.printf(Locale.ROOT, "%s: opensearch index caught up in %.1f s%n", label,
                                (System.nanoTime() - started) / 1e9);
                    }
                    yield new Indexed(jiyi.recallIndex("opensearch"), null);
                }
                case "lucene-smartcn" -> {
                    Path dir = home.dir().resolve("lucene-smartcn");
                    // A new index follows the change log from its start, as the default one does.
                    LuceneIndex lucene = LuceneIndex.open(dir, LuceneOptions.defaults().withAnalysis(Analysis.SMARTCN));
                    dev.jiyi.bench.LuceneRecallHarness.catchUp(lucene, authority, label + ": lucene-smartcn index", quiet);
                    yield new Indexed(new RecallIndex(lucene, lucene), lucene);
                }
                default -> throw new IllegalArgumentException("--index: must be one of " + String.join(", ", RecallQuality.INDEXES));
            };
        }

        @Override
        public void close() {
            if (owned != null) {
                try {
                    owned.close();
                } catch (Exception e) {
                    throw new IllegalStateException("cannot close the " + index + " index", e);
                }
            }
        }
    }

    /**
     * Loads the scenario's events and memories as a host would, in batches, then applies its
     * corrections and deletions; returns the memories as committed.
     */
    static List<Memory> load(Authority authority, Scenario s, Progress progress, Map<String, String> aliases) {
        List<EventSubmission> events = new ArrayList<>();
        for (Scenario.EventSpec e : s.events()) {
            events.add(new EventSubmission(e.id(), e.scope(), e.role(), e.text(), "benchmark", null, e.session(),
                    e.occurredAt()));
        }
        for (int i = 0; i < events.size(); i += 1000) {
            List<EventSubmission> batch = events.subList(i, Math.min(events.size(), i + 1000));
            Growth.require(authority.submitEvents(batch), "events");
            progress.advance(batch.size());
        }
        List<Derivation> derivations = new ArrayList<>();
        for (Scenario.MemorySpec m : s.memories()) {
            derivations.add(new Derivation(m.scope(), MemoryDraft.builder(m.eventId()).kind(m.kind()).basis(m.basis())
                    .text(cap(m.text())).quote(cap(m.quote())).subject(m.subject()).factKey(m.factKey())
                    .validAt(m.validAt()).build()));
        }
        List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < derivations.size(); i += 1000) {
            BatchResult<Memory> r = authority.addMemories(derivations.subList(i, Math.min(derivations.size(), i + 1000)));
            Growth.require(r, "memories");
            memories.addAll(r.committed());
            progress.advance(r.committed().size());
        }
        for (Scenario.Change change : s.changes()) {
            switch (change) {
                case Scenario.Correct c -> {
                    for (Memory m : memories) {
                        if (m.eventId().equals(c.eventId())) {
                            dev.jiyi.authority.Correction done = authority.correctMemory(c.scope(), m.id(),
                                    new CorrectionDraft(c.text(), c.quote(), null));
                            aliases.put(done.corrected().eventId(), c.eventId());
                        }
                    }
                }
                case Scenario.Delete d -> authority.deleteEvent(d.scope(), d.eventId());
            }
        }
        return memories;
    }

    private static String cap(String s) {
        return s.length() > 2000 ? s.substring(0, 2000) : s;
    }
}
