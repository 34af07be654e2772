package dev.jiyi.pack;

import dev.jiyi.authority.BatchResult;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Category;
import dev.jiyi.authority.CorrectionDraft;
import dev.jiyi.authority.Correction;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.Emotion;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.authority.SubmitResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.jiyi.pack.PackFixture.ABOUT;
import static dev.jiyi.pack.PackFixture.ORDER;
import static dev.jiyi.pack.PackFixture.components;
import static dev.jiyi.pack.PackFixture.independentCount;
import static dev.jiyi.pack.PackFixture.strings;
import static dev.jiyi.pack.PackFixture.text;
import static dev.jiyi.pack.PackFixture.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded property test of the whole pack (P1-P5, K1, F4, R6, R8, C3, D1, S1) over random
 * archives (Chinese, English and mixed turns; memories of every kind; corrections, deletions,
 * expired and future records; checkpoints; emotions; another scope's data) and random budgets from
 * 1 to beyond the full size, for cl100k, o200k and UTF-8 byte counting.
 *
 * <p>Every archive is modeled here as it is built, so the expectations (which turns are recent,
 * which agreements are current, which checkpoint is valid, which emotion is current) come from the
 * model, not from the code. Every text carries a tag ({@code [e7]}, {@code [m3]}, {@code [cp1]},
 * {@code [z2]}) so that its presence in a context can be checked without knowing the context's shape.
 *
 * <p>Replay: the master seed is printed ({@code -Djiyi.test.seed=...}); a failing archive's own seed and
 * model are in the failure message ({@code -Djiyi.pack.archiveSeed=... -Djiyi.pack.archiveModel=...}
 * runs only that archive). The models take turns, so every counter is exercised in every run.
 */
class ContextPackPropertyTest {

    /** Archives per run; {@code -Djiyi.pack.archives=N} for a longer soak. */
    static final int ARCHIVES = Integer.getInteger("jiyi.pack.archives", 27);
    static final int RANDOM_BUDGETS = 6;
    static final double LN_HALF = Math.log(0.5);

    static final List<String> ZH = List.of("我喜欢喝绿茶", "今天去公园散步了", "周末打算去杭州旅行", "我们约定每周五复盘",
            "数据库迁移完成了", "我养了一只猫叫咪咪", "最近在学钢琴", "会议改到下午三点", "北京大学的图书馆很大", "这本书讲的是历史",
            "记得提醒我吃药", "我对花生过敏", "新项目用 Rust 写", "女儿下个月上小学");
    static final List<String> EN = List.of("I like green tea", "the meeting moved to 3pm", "we agreed to review on Fridays",
            "learning to play the piano", "my cat is called Mimi", "planning a trip to Hangzhou",
            "the database migration is done", "reading a history book", "remind me to take my medicine",
            "allergic to peanuts", "the new project is written in Rust", "my daughter starts school next month");
    static final List<String> MIXED = List.of("用 Python 写脚本 writing scripts", "周五 deploy 上线", "喝 latte 还是 green tea",
            "cat 咪咪 likes fish 鱼", "Hangzhou 西湖 trip", "<|endoftext|> 特殊 token", "piano 钢琴 lesson at 7pm");
    static final List<String> QUERIES = List.of("绿茶", "tea", "猫", "cat Mimi", "杭州", "piano", "数据库 database", "会议 meeting",
            "书", "Friday 周五", "过敏 peanuts", "Rust", "小学 school", "钢琴 lesson");
    static final List<String> MODELS = java.util.Arrays.asList("gpt-4", "gpt-4o", null, "claude-x", "deepseek-chat");
    static final Set<Kind> AGREEMENT_KINDS = Set.of(Kind.AGREEMENT, Kind.GROWTH);
    static final Pattern TAG = Pattern.compile("\\[(?:e|m|cp|z)\\d+\\]");

    // ------------------------------------------------------------------ the model

    static final class Ev {
        final String tag;
        final Role role;
        final String session;
        final Instant at;
        final String text;
        Event stored;
        boolean deleted;
        boolean amended;
        final List<Mem> mems = new ArrayList<>();

        Ev(String tag, Role role, String session, Instant at, String text) {
            this.tag = tag;
            this.role = role;
            this.session = session;
            this.at = at;
            this.text = text;
        }
    }

    static final class Mem {
        final String tag;
        final Kind kind;
        final Ev source; // null for a corrected memory (its source is a correction event)
        final Instant validAt;
        final Instant invalidAt;
        final Emotion emotion;
        Memory stored;
        boolean revoked;
        boolean deleted;

        Mem(String tag, Kind kind, Ev source, Instant validAt, Instant invalidAt, Emotion emotion) {
            this.tag = tag;
            this.kind = kind;
            this.source = source;
            this.validAt = validAt;
            this.invalidAt = invalidAt;
            this.emotion = emotion;
        }

        boolean currentAt(Instant now) {
            return !revoked && !deleted && !validAt.isAfter(now) && (invalidAt == null || invalidAt.isAfter(now));
        }
    }

    /** One random archive, built into a fixture and modeled. */
    static final class Archive {
        final Random r;
        final PackFixture f;
        final Scope scope;
        final Scope noise;
        String persona;
        final List<Ev> events = new ArrayList<>();
        final List<Mem> mems = new ArrayList<>();
        String checkpointTag; // the expected valid checkpoint of session s1, or null
        final Set<String> forbidden = new TreeSet<>(); // tags that must never appear in a context
        int nextTag;

        Archive(Random r, PackFixture f) {
            this.r = r;
            this.f = f;
            List<Scope> scopes = List.of(Scope.DEFAULT, new Scope("小明", "项目-甲"), new Scope("bob", "x"));
            this.scope = scopes.get(r.nextInt(scopes.size()));
            this.noise = scope.equals(Scope.DEFAULT) ? new Scope("default", "other") : Scope.DEFAULT;
        }

        String phrase() {
            int pick = r.nextInt(10);
            List<String> pool = pick < 4 ? ZH : pick < 8 ? EN : MIXED;
            return pool.get(r.nextInt(pool.size()));
        }

        String phrases(int max) {
            StringBuilder sb = new StringBuilder();
            int n = 1 + r.nextInt(max);
            for (int i = 0; i < n; i++) {
                sb.append(i == 0 ? "" : r.nextBoolean() ? "，" : ". ").append(phrase());
            }
            if (r.nextInt(6) == 0) {
                sb.append(' ').append(SeededRandom.mixedText(r, 40));
            }
            return sb.toString();
        }

        String tag(String prefix) {
            return "[" + prefix + (++nextTag) + "]";
        }

        void build() {
            if (r.nextInt(10) < 7) {
                StringBuilder p = new StringBuilder("[persona] ");
                int n = r.nextInt(4) == 0 ? 60 + r.nextInt(80) : 1 + r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    p.append(phrase()).append("。");
                }
                persona = p.toString();
                f.authority.editPersona(scope.personaId(), persona);
            } else {
                persona = f.authority.persona(scope.personaId(), null).content();
            }

            // Events at distinct times, half within the last two days (emotions still current).
            int n = r.nextInt(26);
            Set<Long> offsets = new HashSet<>();
            while (offsets.size() < n) {
                offsets.add(r.nextBoolean() ? 60 + r.nextInt(48 * 3600) : 60 + (long) r.nextInt(400 * 24 * 3600));
            }
            for (long offset : offsets) {
                int rolePick = r.nextInt(20);
                Role role = rolePick == 0 ? Role.SYSTEM : rolePick < 11 ? Role.USER : Role.ASSISTANT;
                String tag = tag("e");
                String body = r.nextInt(12) == 0 ? phrase().repeat(2600 / phrase().length() + 1) : phrases(3);
                events.add(new Ev(tag, role, r.nextInt(10) < 6 ? "s1" : "s2", f.now.minusSeconds(offset), tag + " " + body));
            }
            // Submitted out of time order, in one batch.
            List<Ev> submitOrder = new ArrayList<>(events);
            Collections.shuffle(submitOrder, r);
            BatchResult<SubmitResult> submitted = f.authority.submitEvents(submitOrder.stream()
                    .map(e -> new EventSubmission("id-" + e.tag.substring(1, e.tag.length() - 1), scope, e.role, e.text,
                            "test", Category.CONVERSATION, e.session, e.at))
                    .toList());
            assertThat(submitted.failed()).as("events stored").isFalse();
            for (int i = 0; i < submitOrder.size(); i++) {
                submitOrder.get(i).stored = submitted.committed().get(i).event();
            }

            // Memories of every kind, in one batch.
            List<Mem> drafted = new ArrayList<>();
            List<Derivation> derivations = new ArrayList<>();
            for (Ev e : events) {
                if (e.role == Role.SYSTEM || r.nextInt(10) >= 6) {
                    continue;
                }
                boolean emotionDone = false;
                int count = 1 + r.nextInt(2);
                for (int i = 0; i < count; i++) {
                    Mem m = draftMemory(e, emotionDone, derivations);
                    drafted.add(m);
                    emotionDone |= m.emotion != null;
                }
            }
            BatchResult<Memory> derived = f.authority.addMemories(derivations);
            assertThat(derived.failed()).as("memories stored").isFalse();
            for (int i = 0; i < drafted.size(); i++) {
                Mem m = drafted.get(i);
                m.stored = derived.committed().get(i);
                assertThat(m.stored.validity().validAt()).as("T2 start").isEqualTo(m.validAt);
            }

            // Another scope's data, never to be seen.
            for (int i = 0; i < 3; i++) {
                String z = tag("z");
                Event ze = f.event(noise, "s1", i == 1 ? Role.ASSISTANT : Role.USER, z + " " + phrases(2), f.minutesAgo(5 + i));
                if (i == 1) {
                    f.authority.addMemory(noise, MemoryDraft.builder(ze.id()).kind(Kind.EMOTION).basis(Basis.ASSISTANT_EXPRESSION)
                            .text(z + " mood").quote(z).emotion(new Emotion("noise-mood " + z, 0.5, 0.5)).build());
                } else {
                    f.authority.addMemory(noise, MemoryDraft.builder(ze.id()).kind(i == 0 ? Kind.AGREEMENT : Kind.FACT)
                            .basis(Basis.USER_STATEMENT).text(z + " " + phrases(2)).quote(z).build());
                }
                if (i == 2) {
                    String zc = tag("z");
                    forbidden.add(zc);
                    f.checkpoint(noise, "s1", zc + " " + phrases(2), List.of(phrase()), null, ze.sequence());
                }
                forbidden.add(z);
            }

            // A checkpoint before the changes.
            List<Ev> s1 = events.stream().filter(e -> e.session.equals("s1")).toList();
            String before = null;
            if (!s1.isEmpty() && r.nextBoolean()) {
                before = saveCheckpoint(s1.get(r.nextInt(s1.size())));
            }

            // Corrections and deletions: each invalidates every checkpoint of the scope (D3).
            int changes = 0;
            List<Mem> correctable = new ArrayList<>(mems.stream().filter(m -> m.emotion == null).toList());
            Collections.shuffle(correctable, r);
            int corrections = r.nextInt(3);
            for (int i = 0; i < corrections && i < correctable.size(); i++) {
                Mem old = correctable.get(i);
                String tag = tag("m");
                Correction c = f.authority.correctMemory(scope, old.stored.id(),
                        new CorrectionDraft(tag + " " + phrases(2), null, null));
                old.revoked = true;
                old.source.amended = true;
                forbidden.add(old.tag);
                Mem corrected = new Mem(tag, old.kind, null, old.validAt, old.invalidAt, null);
                corrected.stored = c.corrected();
                assertThat(c.corrected().validity().validAt()).as("C2 keeps the start").isEqualTo(old.validAt);
                mems.add(corrected);
                changes++;
            }
            List<Ev> deletable = new ArrayList<>(events.stream().filter(e -> !e.amended).toList());
            Collections.shuffle(deletable, r);
            int deletions = r.nextInt(3);
            for (int i = 0; i < deletions && i < deletable.size(); i++) {
                Ev e = deletable.get(i);
                f.authority.deleteEvent(scope, e.stored.id());
                e.deleted = true;
                forbidden.add(e.tag);
                for (Mem m : e.mems) {
                    m.deleted = true;
                    forbidden.add(m.tag);
                }
                changes++;
            }
            for (Ev e : events) {
                if (e.amended) {
                    forbidden.add(e.tag); // C3: an amended turn's text is not packed
                }
            }
            for (Mem m : mems) {
                if (!m.currentAt(f.now)) {
                    forbidden.add(m.tag); // R8: revoked, deleted, expired or future
                }
            }

            // A checkpoint after the changes.
            List<Ev> liveS1 = s1.stream().filter(e -> !e.deleted).toList();
            String after = null;
            if (!liveS1.isEmpty() && r.nextInt(10) < 4) {
                after = saveCheckpoint(liveS1.get(r.nextInt(liveS1.size())));
            }
            checkpointTag = after != null ? after : changes == 0 ? before : null;
            if (before != null && !before.equals(checkpointTag)) {
                forbidden.add(before);
            }
        }

        private Mem draftMemory(Ev e, boolean emotionDone, List<Derivation> derivations) {
            String tag = tag("m");
            String text = tag + " " + phrases(2);
            int end = Math.min(e.text.length(), 100);
            if (Character.isHighSurrogate(e.text.charAt(end - 1))) {
                end--;
            }
            String quote = e.text.substring(0, end);
            Kind kind;
            Basis basis;
            Emotion emotion = null;
            if (e.role == Role.ASSISTANT) {
                basis = Basis.ASSISTANT_EXPRESSION;
                List<Kind> kinds = List.of(Kind.EMOTION, Kind.AGREEMENT, Kind.EPISODE, Kind.OBSERVATION, Kind.GROWTH);
                kind = kinds.get(r.nextInt(kinds.size()));
                if (kind == Kind.EMOTION && emotionDone) {
                    kind = Kind.OBSERVATION;
                }
                if (kind == Kind.EMOTION) {
                    emotion = new Emotion("mood-" + tag, r.nextDouble() * 2 - 1, r.nextDouble());
                }
            } else {
                basis = Basis.USER_STATEMENT;
                List<Kind> kinds = List.of(Kind.FACT, Kind.PREFERENCE, Kind.EPISODE, Kind.OBSERVATION, Kind.AGREEMENT, Kind.GROWTH);
                kind = kinds.get(r.nextInt(kinds.size()));
            }
            MemoryDraft.Builder b = MemoryDraft.builder(e.stored.id()).kind(kind).basis(basis).text(text).quote(quote)
                    .emotion(emotion);
            Instant validAt = e.at;
            Instant invalidAt = null;
            int validity = emotion != null ? 99 : r.nextInt(20);
            if (validity < 2) { // expired
                invalidAt = e.at.plusSeconds(Math.max(1, Duration.between(e.at, f.now).toSeconds() / 2));
            } else if (validity < 4) { // still valid, with a known end
                invalidAt = f.now.plus(Duration.ofDays(1 + r.nextInt(30)));
            } else if (validity < 5) { // starts in the future
                validAt = f.now.plus(Duration.ofDays(1 + r.nextInt(30)));
                b.validAt(validAt);
            }
            b.invalidAt(invalidAt);
            Mem m = new Mem(tag, kind, e, validAt, invalidAt, emotion);
            derivations.add(new Derivation(scope, b.build()));
            e.mems.add(m);
            mems.add(m);
            return m;
        }

        private String saveCheckpoint(Ev covered) {
            String tag = tag("cp");
            String goal = tag + " " + (r.nextInt(5) == 0 ? phrase().repeat(3000 / phrase().length()) : phrases(3));
            if (goal.length() > 4000) {
                goal = goal.substring(0, 4000);
            }
            List<String> pending = new ArrayList<>();
            for (int i = r.nextInt(4); i > 0; i--) {
                pending.add(phrases(2));
            }
            f.checkpoint(scope, "s1", goal, pending, r.nextBoolean() ? phrases(1) : null, covered.stored.sequence());
            return tag;
        }

        // -------------------------------------------------------------- expectations

        List<Ev> expectedRecent(String session) {
            return events.stream()
                    .filter(e -> !e.deleted && !e.amended && (session == null || e.session.equals(session)))
                    .sorted(Comparator.comparing((Ev e) -> e.at))
                    .skip(Math.max(0, events.stream().filter(e -> !e.deleted && !e.amended
                            && (session == null || e.session.equals(session))).count() - 5))
                    .toList();
        }

        List<Mem> currentAgreements() {
            return mems.stream().filter(m -> AGREEMENT_KINDS.contains(m.kind) && m.currentAt(f.now)).toList();
        }

        Set<String> currentMemoryTags() {
            Set<String> out = new HashSet<>();
            mems.stream().filter(m -> m.currentAt(f.now)).forEach(m -> out.add(m.tag));
            return out;
        }

        /** Events that may stand as raw recall results (R7): live, not amended, nothing derived from them. */
        Set<String> rawEventTags() {
            Set<String> out = new HashSet<>();
            events.stream().filter(e -> !e.deleted && !e.amended && e.mems.isEmpty()).forEach(e -> out.add(e.tag));
            return out;
        }

        /** The current emotion's label, or null; {@code "?"} when it sits too close to the 0.01 cut-off to call. */
        String expectedEmotion() {
            Mem latest = null;
            for (Mem m : mems) {
                if (m.emotion != null && !m.revoked && !m.deleted && !m.source.at.isAfter(f.now)
                        && (latest == null || m.source.at.isAfter(latest.source.at))) {
                    latest = m;
                }
            }
            if (latest == null) {
                return null;
            }
            double decay = Math.exp(LN_HALF * Duration.between(latest.source.at, f.now).toSeconds() / (6 * 3600.0));
            if (Math.abs(decay - 0.01) < 1e-4) {
                return "?";
            }
            return decay >= 0.01 ? latest.emotion.label() : null;
        }
    }

    // ------------------------------------------------------------------ the property

    static List<String> tagsIn(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = TAG.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    @Test
    @DisplayName("P1 P2 P3 P4 P5 K1 F4 R6 R8 C3 S1 seeded property: random archives (Chinese, English, mixed) and budgets; count == independent count <= budget, order, whole components, omitted ones would not have fit")
    void randomArchivesAndBudgets(@TempDir Path root) {
        String only = System.getProperty("jiyi.pack.archiveSeed");
        if (only != null) {
            String model = System.getProperty("jiyi.pack.archiveModel", "null");
            runArchive(root.resolve("only"), Long.parseLong(only), model.equals("null") ? null : model);
            return;
        }
        Random master = SeededRandom.create("ContextPackPropertyTest.randomArchivesAndBudgets");
        long started = System.nanoTime();
        int cases = 0;
        for (int a = 0; a < ARCHIVES; a++) {
            cases += runArchive(root.resolve("a" + a), master.nextLong(), MODELS.get(a % MODELS.size()));
        }
        System.out.printf("[property] %d archives (built in %d ms), %d packs checked in %d ms in all: %s%n", ARCHIVES,
                buildNanos / 1_000_000, cases, (System.nanoTime() - started) / 1_000_000, stats);
        assertThat(cases).isGreaterThanOrEqualTo(300);
        // The property is not vacuous: every situation it is about occurred.
        assertThat(stats).as("situations covered")
                .hasEntrySatisfying("insufficient_budget", n -> assertThat(n).isGreaterThanOrEqualTo(20))
                .hasEntrySatisfying("with_omissions", n -> assertThat(n).isGreaterThanOrEqualTo(40))
                .hasEntrySatisfying("included_after_omitted", n -> assertThat(n).isGreaterThanOrEqualTo(3))
                .hasEntrySatisfying("cl100k_base", n -> assertThat(n).isGreaterThanOrEqualTo(20))
                .hasEntrySatisfying("o200k_base", n -> assertThat(n).isGreaterThanOrEqualTo(20))
                .hasEntrySatisfying("utf8_bytes", n -> assertThat(n).isGreaterThanOrEqualTo(20));
    }

    /** How often each situation occurred, to show that the property covered it. */
    private final Map<String, Integer> stats = new java.util.TreeMap<>();
    private long buildNanos;

    private void count(String situation) {
        stats.merge(situation, 1, Integer::sum);
    }

    /** Builds one archive from {@code seed} and checks packs of it at many budgets; returns how many packs. */
    private int runArchive(Path dir, long seed, String model) {
        try (PackFixture f = new PackFixture(dir)) {
            Random r = new Random(seed);
            Archive archive = new Archive(r, f);
            long t0 = System.nanoTime();
            archive.build();
            buildNanos += System.nanoTime() - t0;
            String session = r.nextInt(10) < 7 ? "s1" : null;
            int q = r.nextInt(20);
            String query = q < 6 ? null : q < 14 ? QUERIES.get(r.nextInt(QUERIES.size()))
                    : q < 17 ? "qzxv wkjh" : SeededRandom.mixedText(r, 30);
            if (query != null && query.isBlank()) {
                query = null;
            }
            String where = "archive seed " + seed + " (replay with -Djiyi.pack.archiveSeed=" + seed
                    + " -Djiyi.pack.archiveModel=" + model + "), model " + model
                    + ", session " + session + ", query " + query;
            try {
                return check(archive, model, session, query);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(where + ": " + e.getMessage(), e);
            }
        }
    }

    private int check(Archive a, String model, String session, String query) {
        PackFixture f = a.f;
        Pack ref = f.pack(a.scope, PackRequest.MAX_BUDGET, model, query, session);
        checkReference(a, ref, model, session, query);
        Map<String, JsonNode> refParts = components(ref.context());
        Map<String, JsonNode> minimalParts = new LinkedHashMap<>();
        minimalParts.put(ABOUT, refParts.get(ABOUT));
        minimalParts.put("persona", refParts.get("persona"));
        int minimal = independentCount(model, write(minimalParts));

        Set<Integer> budgets = new LinkedHashSet<>(List.of(1, Math.max(1, minimal - 1), minimal, ref.tokens(),
                Math.max(1, ref.tokens() - 1)));
        double top = Math.log(ref.tokens() * 1.3 + 2);
        while (budgets.size() < 5 + RANDOM_BUDGETS) {
            if (a.r.nextInt(3) == 0) { // anywhere from 1, log-uniform: mostly too small
                budgets.add((int) Math.max(1, Math.min(PackRequest.MAX_BUDGET, Math.exp(a.r.nextDouble() * top))));
            } else { // between persona + framing and a little beyond everything
                int span = ref.tokens() - minimal;
                budgets.add(minimal + a.r.nextInt(span + span / 5 + 2));
            }
        }
        int packs = 1;
        for (int budget : budgets) {
            Pack p = f.pack(a.scope, budget, model, query, session);
            try {
                checkBudgeted(p, ref, refParts, minimal, budget, model);
                count(p.tokenizer());
                if (p.status().equals(Pack.INSUFFICIENT_BUDGET)) {
                    count("insufficient_budget");
                } else if (!p.omitted().isEmpty()) {
                    count("with_omissions");
                    String firstOmitted = p.omitted().get(0);
                    List<String> in = new ArrayList<>(p.included().keySet());
                    if (ORDER.indexOf(in.get(in.size() - 1)) > ORDER.indexOf(firstOmitted)) {
                        count("included_after_omitted");
                    }
                }
            } catch (AssertionError e) {
                throw new AssertionError("budget " + budget + " (full size " + ref.tokens() + ", persona+framing " + minimal
                        + "): " + e.getMessage(), e);
            }
            packs++;
        }
        return packs;
    }

    /** The unbudgeted pack against the model: what each component holds. */
    private void checkReference(Archive a, Pack ref, String model, String session, String query) {
        assertThat(ref.status()).isEqualTo(Pack.OK);
        assertThat(ref.tokenizer()).isEqualTo(PackFixture.expectedTokenizer(model));
        assertThat(ref.tokens()).isEqualTo(independentCount(model, ref.context()));
        assertThat(ref.omitted()).isEmpty();
        Map<String, JsonNode> parts = components(ref.context());
        assertThat(write(parts)).as("the context is compact JSON that re-serializes to itself").isEqualTo(ref.context());
        List<String> keys = new ArrayList<>(parts.keySet());
        assertThat(keys).first().isEqualTo(ABOUT);
        assertThat(keys.subList(1, keys.size())).as("P2 order").isEqualTo(ORDER.stream().filter(keys::contains).toList())
                .startsWith("persona").containsExactlyElementsOf(ref.included().keySet());
        Set<String> all = new HashSet<>(ref.included().keySet());
        all.addAll(ref.empty());
        assertThat(all).as("every component is included or empty").containsExactlyInAnyOrderElementsOf(ORDER);
        assertThat(ref.empty()).doesNotContainAnyElementsOf(ref.included().keySet());
        assertThat(strings(parts.get("persona"))).as("the persona's text").contains(a.persona);

        // S1, D1, R8, C3: nothing of another scope, deleted, revoked, expired, future or amended.
        assertThat(tagsIn(ref.context())).as("forbidden tags").doesNotContainAnyElementsOf(a.forbidden);

        // K1: the session's latest valid checkpoint (only session s1 has checkpoints).
        String cp = a.checkpointTag;
        if (cp != null) {
            assertThat(parts).containsKey("checkpoint");
            assertThat(tagsIn(text(parts.get("checkpoint")))).as("K1 checkpoint").startsWith(cp);
        } else {
            assertThat(parts).doesNotContainKey("checkpoint");
            assertThat(ref.empty()).contains("checkpoint");
        }

        // P2: the latest five turns, oldest first.
        List<Ev> recent = a.expectedRecent(session);
        List<String> recentTags = recent.stream().map(e -> e.tag).toList();
        if (recent.isEmpty()) {
            assertThat(parts).doesNotContainKey("recent_events");
        } else {
            assertThat(tagsIn(text(parts.get("recent_events"))).stream().filter(t -> t.startsWith("[e")).toList())
                    .as("P2 recent turns").isEqualTo(recentTags);
            assertThat(ref.included()).containsEntry("recent_events", recent.size());
        }

        // P2: at most 20 current agreements and growth records, the most recent.
        List<Mem> current = a.currentAgreements();
        Set<String> shownAgreements = new HashSet<>();
        if (current.isEmpty()) {
            assertThat(parts).doesNotContainKey("agreements_and_growth");
        } else {
            List<String> shown = tagsIn(text(parts.get("agreements_and_growth")));
            shownAgreements.addAll(shown);
            Map<String, Mem> byTag = new LinkedHashMap<>();
            current.forEach(m -> byTag.put(m.tag, m));
            assertThat(shown).doesNotHaveDuplicates().hasSize(Math.min(20, current.size()));
            assertThat(byTag.keySet()).as("only current agreement and growth records").containsAll(shown);
            if (current.size() > 20) {
                Instant oldestShown = shown.stream().map(t -> byTag.get(t).validAt).min(Comparator.naturalOrder()).orElseThrow();
                for (Mem m : current) {
                    if (!shown.contains(m.tag)) {
                        assertThat(m.validAt).as("a left-out agreement is not newer than a shown one")
                                .isBeforeOrEqualTo(oldestShown);
                    }
                }
            }
            assertThat(ref.included()).containsEntry("agreements_and_growth", shown.size());
        }

        // R6: what the memories are recalled by; recalled ones are current, not repeated, at most 20.
        String expectedBasis;
        if (query != null) {
            expectedBasis = "query";
        } else {
            List<String> basis = new ArrayList<>();
            if (cp != null) {
                basis.add("checkpoint");
            }
            if (recent.stream().anyMatch(e -> e.role == Role.USER)) {
                basis.add("latest_user_turn");
            }
            expectedBasis = basis.isEmpty() ? "nothing" : String.join("+", basis);
        }
        assertThat(ref.recalledBy()).isEqualTo(expectedBasis);
        if (expectedBasis.equals("nothing") || "qzxv wkjh".equals(query)) {
            assertThat(parts).as("R6: nothing to recall by, or no evidence").doesNotContainKey("recalled_memories");
            assertThat(ref.empty()).contains("recalled_memories");
        }
        if (parts.containsKey("recalled_memories")) {
            List<String> tags = tagsIn(text(parts.get("recalled_memories")));
            Set<String> allowed = new HashSet<>(a.currentMemoryTags());
            allowed.removeAll(shownAgreements);
            allowed.addAll(a.rawEventTags());
            assertThat(allowed).as("recalled: current memories not already in agreements, or raw underived turns")
                    .containsAll(tags);
            assertThat(ref.included().get("recalled_memories")).isBetween(1, 20);
        }

        // F4: the most recent expressed emotion, unless faded.
        String mood = a.expectedEmotion();
        if (mood == null) {
            assertThat(parts).doesNotContainKey("current_emotion");
        } else if (!mood.equals("?")) {
            assertThat(parts).containsKey("current_emotion");
            assertThat(strings(parts.get("current_emotion"))).as("F4 label").contains(mood);
        }
    }

    /** A budgeted pack against the unbudgeted one: counted right, within budget, whole components, greedy omission. */
    private void checkBudgeted(Pack p, Pack ref, Map<String, JsonNode> refParts, int minimal, int budget, String model) {
        assertThat(p.budget()).isEqualTo(budget);
        assertThat(p.tokenizer()).isEqualTo(ref.tokenizer());
        assertThat(p.tokens()).as("P5 count == independent count").isEqualTo(independentCount(model, p.context()));
        assertThat(p.tokens()).as("P5 within budget").isLessThanOrEqualTo(budget);
        if (minimal > budget) {
            assertThat(p.status()).as("P4").isEqualTo(Pack.INSUFFICIENT_BUDGET);
            assertThat(p.context()).isEmpty();
            assertThat(p.tokens()).isZero();
            assertThat(p.included()).isEmpty();
            assertThat(p.omitted()).contains("persona");
            return;
        }
        assertThat(p.status()).as("P4: persona + framing fit").isEqualTo(Pack.OK);
        Map<String, JsonNode> parts = components(p.context());
        List<String> keys = new ArrayList<>(parts.keySet());
        assertThat(keys).first().isEqualTo(ABOUT);
        assertThat(keys.subList(1, keys.size())).as("P2 order, P1 metadata names what is in")
                .containsExactlyElementsOf(p.included().keySet())
                .isEqualTo(ORDER.stream().filter(keys::contains).toList())
                .startsWith("persona");
        assertThat(parts.get(ABOUT)).isEqualTo(refParts.get(ABOUT));
        for (String k : p.included().keySet()) {
            assertThat(parts.get(k)).as("P3 component %s whole", k).isEqualTo(refParts.get(k));
            assertThat(p.included().get(k)).as("P3 item count of %s", k).isEqualTo(ref.included().get(k));
        }
        assertThat(p.omitted()).doesNotContainAnyElementsOf(p.included().keySet());
        Set<String> inOrOut = new HashSet<>(p.included().keySet());
        inOrOut.addAll(p.omitted());
        assertThat(inOrOut).as("P3 every component with content is included or named omitted")
                .containsExactlyInAnyOrderElementsOf(ref.included().keySet());
        assertThat(p.omitted()).as("omitted in component order")
                .isEqualTo(ORDER.stream().filter(p.omitted()::contains).toList());
        assertThat(p.empty()).containsExactlyElementsOf(ref.empty());
        assertThat(p.recalledBy()).isEqualTo(ref.recalledBy());

        // An omitted component really did not fit: with it, at its turn, the context would exceed the budget.
        for (String omitted : p.omitted()) {
            Map<String, JsonNode> trial = new LinkedHashMap<>();
            trial.put(ABOUT, parts.get(ABOUT));
            for (String k : ORDER) {
                if (k.equals(omitted)) {
                    trial.put(k, refParts.get(k));
                    break;
                }
                if (parts.containsKey(k)) {
                    trial.put(k, parts.get(k));
                }
            }
            assertThat(independentCount(model, write(trial))).as("P3 %s was omitted, so with it the count exceeds the budget",
                    omitted).isGreaterThan(budget);
        }
        if (budget >= ref.tokens()) {
            assertThat(p.context()).as("everything fits").isEqualTo(ref.context());
        }
    }
}
