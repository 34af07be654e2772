package dev.jiyi.ranking;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.VectorCache;
import dev.jiyi.authority.index.ExactVectorScan;
import dev.jiyi.authority.index.RecallIndex;
import dev.jiyi.fts5.Fts5Index;
import dev.jiyi.providers.Embedder;
import dev.jiyi.providers.Embedders;
import dev.jiyi.providers.ProviderException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Semantic and deep recall (R3's cosine term, R4, R5, V1, V4) over real SQLite and FTS5, with a
 * deterministic concept embedder standing in for a model: each text gets one dimension per concept
 * it mentions plus a small shared baseline, so similarities are known in advance (a text about
 * cats and the query 宠物 share the "pet" concept and no word).
 */
class SemanticRecallTest {

    static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

    /** Concepts and the words (Chinese and English) that mention them. */
    static final List<List<String>> CONCEPTS = List.of(
            List.of("猫", "狗", "宠物", "pet", "cat", "puppy"),
            List.of("天气", "下雨", "rain", "weather"),
            List.of("税", "报告", "tax", "report"),
            List.of("山", "hiking", "爬"));

    /** The concept embedder: counts its calls; optionally fails. */
    static final class ConceptEmbedder implements Embedder {
        final String fingerprint;
        final AtomicInteger calls = new AtomicInteger();
        boolean fail;
        /** Moves every dimension this far along: another model's space, in which the same concepts lie elsewhere. */
        int rotation;
        double threshold = Embedder.DEFAULT_COSINE_THRESHOLD;

        @Override
        public double cosineThreshold() {
            return threshold;
        }

        ConceptEmbedder(String fingerprint) {
            this.fingerprint = fingerprint;
        }

        ConceptEmbedder(String fingerprint, int rotation) {
            this(fingerprint);
            this.rotation = rotation;
        }

        @Override
        public String fingerprint() {
            return fingerprint;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            calls.incrementAndGet();
            if (fail) {
                throw new ProviderException(ProviderException.Kind.HTTP_STATUS, 503,
                        "embedding endpoint answered HTTP 503", null);
            }
            List<float[]> out = new ArrayList<>();
            for (String text : texts) {
                String t = text.toLowerCase(Locale.ROOT);
                float[] v = new float[CONCEPTS.size() + 1];
                v[CONCEPTS.size()] = 0.2f; // the baseline every text shares
                for (int c = 0; c < CONCEPTS.size(); c++) {
                    for (String word : CONCEPTS.get(c)) {
                        if (t.contains(word)) {
                            v[c] = 1f;
                        }
                    }
                }
                double norm = 0;
                for (float f : v) {
                    norm += f * f;
                }
                float[] rotated = new float[v.length];
                for (int i = 0; i < v.length; i++) {
                    rotated[(i + rotation) % v.length] = v[i] / (float) Math.sqrt(norm);
                }
                out.add(rotated);
            }
            return out;
        }
    }

    @TempDir
    Path dir;

    Authority authority;
    final Fts5Index index = new Fts5Index();
    final Scope scope = new Scope("小明", "work");
    final ConceptEmbedder embedder = new ConceptEmbedder("concept|v1");
    int next;

    @BeforeEach
    void open() {
        authority = Authority.open(dir.resolve("jiyi.db"), List.of(index));
    }

    @AfterEach
    void close() {
        authority.close();
    }

    Recall recall(RecallConfig config, Supplier<Embedder> model) {
        return new Recall(authority, new RecallIndex(index, new ExactVectorScan()), config, Clock.fixed(NOW, ZoneOffset.UTC),
                model == null ? null : () -> Embedders.of(model.get()));
    }

    /** Two models, one per language, whose spaces differ: the English one's concepts lie elsewhere. */
    final ConceptEmbedder zh = new ConceptEmbedder("zh|v1");
    final ConceptEmbedder en = new ConceptEmbedder("en|v1", 2);

    /** Recall with {@link #zh} for Chinese text and {@link #en} for any other. */
    Recall byLanguage(RecallConfig config) {
        return new Recall(authority, new RecallIndex(index, new ExactVectorScan()), config, Clock.fixed(NOW, ZoneOffset.UTC),
                () -> Embedders.byLanguage(zh, en));
    }

    RecallResult query(String q, RecallMode mode) {
        return recall(RecallConfig.DEFAULT, () -> embedder).recall(new RecallRequest(scope, q, mode, 10, null, false));
    }

    /** A user-stated memory of its own event, {@code daysAgo} old, in {@code in}. */
    Memory said(Scope in, String text, int daysAgo) {
        String id = "e" + (++next);
        authority.submitEvent(new EventSubmission(id, in, Role.USER, text, null, null, "solo-" + next,
                NOW.minus(Duration.ofDays(daysAgo))));
        return authority.addMemory(in, MemoryDraft.builder(id).kind(Kind.FACT).basis(Basis.USER_STATEMENT).text(text)
                .quote(text).build());
    }

    Memory said(String text, int daysAgo) {
        return said(scope, text, daysAgo);
    }

    /** Embeds and stores vectors for these memories, the way the ingest pipeline does. */
    void embed(ConceptEmbedder model, Memory... memories) {
        List<VectorCache.NewVector> vectors = new ArrayList<>();
        List<float[]> computed = model.embed(java.util.Arrays.stream(memories).map(Memory::text).toList());
        for (int i = 0; i < memories.length; i++) {
            vectors.add(new VectorCache.NewVector(memories[i].id(), VectorCache.contentHash(memories[i].text()),
                    computed.get(i)));
        }
        assertThat(authority.storeVectors(model.fingerprint(), vectors).stored()).isEqualTo(memories.length);
    }

    static List<String> ids(RecallResult r) {
        return r.items().stream().map(RecalledItem::memoryId).toList();
    }

    static double signal(RecalledItem item, String name) {
        return item.signals().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().value();
    }

    @Test
    @DisplayName("R5 R3 semantic and deep recall find 我养了一只猫 for 宠物 (no shared word) through a cosine above 0.3; fast does not")
    void meaningWithoutSharedWords() {
        Memory cat = said("我养了一只猫", 3);
        Memory tax = said("明天要交税务报告 the tax report is due", 2);
        Memory hiking = said("周末去爬山 hiking on Sunday", 1);
        embed(embedder, cat, tax, hiking);

        assertThat(query("宠物", RecallMode.FAST).items()).isEmpty();
        for (RecallMode mode : List.of(RecallMode.SEMANTIC, RecallMode.DEEP)) {
            RecallResult r = query("宠物", mode);
            // The unrelated memories share only the baseline: cosine 0.196, below the threshold (R6).
            assertThat(ids(r)).as(mode.name()).containsExactly(cat.id());
            RecalledItem item = r.items().getFirst();
            assertThat(item.evidence()).isEqualTo(Evidence.VECTOR);
            assertThat(signal(item, "cosine")).isGreaterThan(0.9);
            assertThat(signal(item, "lexical")).isZero();
            assertThat(r.warnings()).isEmpty();
        }
        RecallResult english = query("do I have a pet?", RecallMode.SEMANTIC);
        assertThat(ids(english)).containsExactly(cat.id());
    }

    @Test
    @DisplayName("R3 similarity counts only above the threshold: at 0.99 the cat is not evidence, and a lexical hit keeps cosine 0")
    void threshold() {
        Memory cat = said("我养了一只猫 I have a cat", 3);
        Memory rain = said("下雨了 it rained", 1);
        embed(embedder, cat, rain);
        RecallConfig strict = RecallConfig.builder().cosineThreshold(0.99).build();
        RecallResult r = recall(strict, () -> embedder).recall(new RecallRequest(scope, "宠物 rain", RecallMode.SEMANTIC,
                10, null, false));
        // "宠物 rain" is 0.69 similar to both memories: under 0.99, so only the lexical match remains.
        assertThat(ids(r)).containsExactly(rain.id());
        assertThat(signal(r.items().getFirst(), "cosine")).isZero();
        RecallResult loose = query("宠物 rain", RecallMode.SEMANTIC);
        assertThat(ids(loose)).containsExactlyInAnyOrder(cat.id(), rain.id());
        assertThat(ids(loose)).first().isEqualTo(rain.id()); // lexical and cosine beat cosine alone
    }

    @Test
    @DisplayName("V1 R5 two models, one per language: each memory is compared with the query's vector of its own "
            + "model, so both the Chinese and the English pet are found though the models' spaces differ; a home "
            + "without vectors of a model never asks that model")
    void oneModelPerLanguage() {
        Memory cat = said("我养了一只猫", 3);
        Memory puppy = said("I adopted a puppy", 2);
        Memory rain = said("it rained all day", 1);
        embed(zh, cat);
        Recall recall = byLanguage(RecallConfig.DEFAULT);

        // Only Chinese vectors so far: the English model is not asked; the other two lack a vector.
        RecallResult zhOnly = recall.recall(new RecallRequest(scope, "宠物", RecallMode.SEMANTIC, 10, null, false));
        assertThat(ids(zhOnly)).containsExactly(cat.id());
        assertThat(en.calls).hasValue(0);
        assertThat(zhOnly.warnings()).singleElement().asString().contains("2 of 3 memories have no vector");

        embed(en, puppy, rain);
        for (RecallMode mode : List.of(RecallMode.SEMANTIC, RecallMode.DEEP)) {
            RecallResult r = recall.recall(new RecallRequest(scope, "pet", mode, 10, null, false));
            assertThat(ids(r)).as(mode.name()).containsExactlyInAnyOrder(cat.id(), puppy.id());
            assertThat(r.items()).allSatisfy(i -> assertThat(signal(i, "cosine")).isGreaterThan(0.9));
            assertThat(r.warnings()).isEmpty();
        }
        assertThat(en.calls.get()).isGreaterThan(1);
        // The fixture's two spaces really differ (so the finds above need each model's own query
        // vector): the Chinese query vector and the English puppy share only the baseline.
        float[] zhQuery = zh.embed("pet");
        float[] enPuppy = en.embed("I adopted a puppy");
        double crossed = 0;
        for (int i = 0; i < zhQuery.length; i++) {
            crossed += zhQuery[i] * enPuppy[i];
        }
        assertThat(crossed).isLessThan(Embedder.DEFAULT_COSINE_THRESHOLD);
    }

    @Test
    @DisplayName("R5 V1 two models: semantic mode compares the N most recent vectors in all, each with its own "
            + "model's query vector, not N of each model; deep mode compares all")
    void semanticLimitAcrossModels() {
        // Oldest first: the Chinese cat, the English puppy, then two Chinese rainy days.
        Memory cat = said("我养了一只猫", 40);
        Memory puppy = said("I adopted a puppy", 30);
        Memory[] rain = {said("第一次下雨", 20), said("第二次下雨", 10)};
        embed(zh, cat);
        embed(en, puppy);
        embed(zh, rain);

        for (int n : new int[] {2, 3}) {
            Recall recall = byLanguage(RecallConfig.builder().semanticLimit(n).build());
            RecallResult r = recall.recall(new RecallRequest(scope, "pet", RecallMode.SEMANTIC, 10, null, false));
            // The newest two are both Chinese: the English puppy is the third newest, compared only when
            // three are (one model's newest two each would have compared it, and four vectors of four).
            assertThat(ids(r)).as("newest %d", n).isEqualTo(n == 2 ? List.of() : List.of(puppy.id()));
            assertThat(r.warnings()).as("newest %d", n).singleElement().asString()
                    .contains("compared the " + n + " most recent of 4 vectors");

            RecallResult deep = recall.recall(new RecallRequest(scope, "pet", RecallMode.DEEP, 10, null, false));
            assertThat(ids(deep)).containsExactlyInAnyOrder(cat.id(), puppy.id());
            assertThat(deep.warnings()).isEmpty();
        }
    }

    @Test
    @DisplayName("R3 unless recall.cosine_threshold is set, the embedding model's own threshold applies")
    void modelThreshold() {
        Memory cat = said("我养了一只猫 I have a cat", 3);
        Memory rain = said("下雨了 it rained", 1);
        embed(embedder, cat, rain);
        assertThat(RecallConfig.DEFAULT.cosineThreshold()).isNaN();
        // "宠物 weather" is 0.69 similar to each memory: evidence at the generic 0.3 ...
        assertThat(ids(query("宠物 weather", RecallMode.SEMANTIC))).containsExactlyInAnyOrder(cat.id(), rain.id());
        // ... but not for a model whose unrelated texts sit higher (as the local BGE model's do).
        embedder.threshold = 0.8;
        assertThat(query("宠物 weather", RecallMode.SEMANTIC).items()).isEmpty();
        assertThat(ids(query("猫 宠物", RecallMode.SEMANTIC))).containsExactly(cat.id());
        // An explicit setting wins over the model's.
        RecallConfig loose = RecallConfig.builder().cosineThreshold(0.3).build();
        assertThat(ids(recall(loose, () -> embedder).recall(new RecallRequest(scope, "宠物 weather", RecallMode.SEMANTIC,
                10, null, false)))).containsExactlyInAnyOrder(cat.id(), rain.id());
    }

    @Test
    @DisplayName("R4 fast recall never asks for the embedder, so no model is loaded and no endpoint called")
    void fastNeverEmbeds() {
        Memory cat = said("我养了一只猫", 1);
        embed(embedder, cat);
        int before = embedder.calls.get();
        AtomicInteger asked = new AtomicInteger();
        Recall recall = recall(RecallConfig.DEFAULT, () -> {
            asked.incrementAndGet();
            return embedder;
        });
        recall.recall(new RecallRequest(scope, "猫", RecallMode.FAST, 10, null, false));
        recall.recall(new RecallRequest(scope, "宠物 pet", RecallMode.FAST, 10, null, true));
        assertThat(asked).hasValue(0);
        assertThat(embedder.calls).hasValue(before);
        recall.recall(new RecallRequest(scope, "宠物", RecallMode.SEMANTIC, 10, null, false));
        assertThat(asked).hasValue(1);
        assertThat(embedder.calls).hasValue(before + 1);
    }

    @Test
    @DisplayName("R5 semantic mode compares only the N most recent eligible vectors and says so; deep mode compares all")
    void semanticLimit() {
        Memory oldest = said("小时候养过一只狗", 400);
        List<Memory> recent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            recent.add(said("第" + i + "次下雨 rain " + i, 10 - i));
        }
        embed(embedder, oldest);
        embed(embedder, recent.toArray(Memory[]::new));
        RecallConfig two = RecallConfig.builder().semanticLimit(2).build();

        RecallResult semantic = recall(two, () -> embedder).recall(new RecallRequest(scope, "宠物", RecallMode.SEMANTIC,
                10, null, false));
        assertThat(semantic.items()).isEmpty();
        assertThat(semantic.warnings()).singleElement().asString()
                .contains("compared the 2 most recent of 5 vectors", "--mode deep");

        RecallResult deep = recall(two, () -> embedder).recall(new RecallRequest(scope, "宠物", RecallMode.DEEP, 10,
                null, false));
        assertThat(ids(deep)).containsExactly(oldest.id());
        assertThat(deep.warnings()).isEmpty();
    }

    @Test
    @DisplayName("V1 V4 only vectors of the current fingerprint count; missing ones are reported as incomplete coverage")
    void coverage() {
        Memory cat = said("我养了一只猫", 3);
        Memory dog = said("我家的狗叫旺财", 2);
        Memory puppy = said("I want a puppy", 1);
        embed(embedder, cat);
        embed(new ConceptEmbedder("another-model|v1"), dog);
        // puppy: derived by hand, never embedded

        RecallResult r = query("宠物", RecallMode.SEMANTIC);
        assertThat(ids(r)).containsExactly(cat.id());
        assertThat(r.warnings()).singleElement().asString()
                .contains("vector coverage incomplete: 2 of 3 memories", "reindex --vectors");

        embed(embedder, dog, puppy); // what reindex --vectors does: replaces the other model's vector
        RecallResult complete = query("宠物", RecallMode.DEEP);
        assertThat(ids(complete)).containsExactlyInAnyOrder(cat.id(), dog.id(), puppy.id());
        assertThat(complete.warnings()).isEmpty();
    }

    @Test
    @DisplayName("R5 R8 T6 S1 vectors of revoked, expired or other-scope memories never surface; expired ones only with history")
    void eligibility() {
        Memory cat = said("我养了一只猫", 30);
        Memory other = said(new Scope("someone-else", "work"), "我也养了一只猫", 30);
        String eventId = "e-expired";
        authority.submitEvent(new EventSubmission(eventId, scope, Role.USER, "以前养过一只狗", null, null, "old",
                NOW.minus(Duration.ofDays(900))));
        Memory expired = authority.addMemory(scope, MemoryDraft.builder(eventId).kind(Kind.FACT)
                .basis(Basis.USER_STATEMENT).text("以前养过一只狗").quote("以前养过一只狗")
                .invalidAt(NOW.minus(Duration.ofDays(800))).build());
        embed(embedder, cat, other, expired);
        Memory corrected = authority.correctMemory(scope, cat.id(),
                new CorrectionDraft("我养了一只橘猫", null, null)).corrected();

        RecallResult now = query("宠物", RecallMode.DEEP);
        assertThat(ids(now)).doesNotContain(cat.id(), other.id(), expired.id());
        // The corrected memory has no vector yet: reported, not guessed.
        assertThat(now.warnings()).anySatisfy(w -> assertThat(w).contains("1 of 1 memories"));
        embed(embedder, corrected);
        assertThat(ids(query("宠物", RecallMode.DEEP))).containsExactly(corrected.id());

        RecallResult history = recall(RecallConfig.DEFAULT, () -> embedder).recall(new RecallRequest(scope, "宠物",
                RecallMode.DEEP, 10, null, true));
        assertThat(ids(history)).containsExactlyInAnyOrder(corrected.id(), expired.id());
        assertThat(history.items()).filteredOn(i -> i.memoryId().equals(expired.id()))
                .singleElement().extracting(RecalledItem::status).isEqualTo(Status.EXPIRED);
    }

    @Test
    @DisplayName("R5 X2 an embedder that fails or is missing leaves recall lexical, with a warning that names no text")
    void embedderFailure() {
        Memory cat = said("我养了一只猫 my cat", 1);
        embed(embedder, cat);
        embedder.fail = true;
        RecallResult r = query("猫 secret-query", RecallMode.SEMANTIC);
        assertThat(ids(r)).containsExactly(cat.id());
        assertThat(r.warnings()).singleElement().asString()
                .contains("could not be embedded", "HTTP 503", "lexical only")
                .doesNotContain("secret-query");

        RecallResult none = recall(RecallConfig.DEFAULT, null).recall(new RecallRequest(scope, "猫", RecallMode.DEEP, 10,
                null, false));
        assertThat(ids(none)).containsExactly(cat.id());
        assertThat(none.warnings()).singleElement().asString().contains("no embedding model");
    }
}
