package dev.jiyi.bench;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Basis;
import dev.jiyi.authority.Derivation;
import dev.jiyi.authority.EventSubmission;
import dev.jiyi.authority.Kind;
import dev.jiyi.authority.MemoryDraft;
import dev.jiyi.authority.Role;
import dev.jiyi.authority.Scope;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A realistic growing chat archive for the benchmarks that measure recall as an archive grows: its
 * vocabulary grows as real text's does (Zipf's law: a few words everywhere, most words rare, new
 * words appearing with every thousand turns), so that a term's document frequency is not a fixed
 * share of the archive and an engine that can prune does.
 *
 * <ul>
 * <li><b>Words.</b> Chinese words are drawn by the frequencies of jieba's dictionary (349,000 words,
 *     the same data jiyi segments with); English words by a frequency list counted over the public
 *     conversation sets we carry ({@code english-frequencies.tsv}), continued by a Zipf tail of
 *     invented words (rank r at the list's last count times {@code L / r}), as real chat has names,
 *     typos and jargon no list holds.</li>
 * <li><b>Topics and names.</b> A session of {@value #TURNS_PER_SESSION} turns is about one of
 *     {@value #TOPICS} topics (a Zipf draw, so some topics recur across the archive and most are
 *     rare), each four Chinese and three English words of the dictionaries' middle band; about one
 *     word in eight of its turns is the topic's. One turn in four names one of its scope's
 *     {@value #ENTITIES} people and places (a Zipf draw too).</li>
 * <li><b>Scopes.</b> Four (persona, project) scopes holding 50, 25, 15 and 10 percent of the
 *     sessions.</li>
 * <li><b>Texts.</b> 45 percent Chinese, 35 percent English, 20 percent mixed; 6 to 45 words.</li>
 * <li><b>Time.</b> One turn every {@value #GAP_SECONDS} seconds, the last at {@link #END}; so a
 *     larger archive reaches further back, and recall's clock (the real one) is past all of it.
 *     One memory in 40 was superseded (its validity ended days after it began) and one in 400 is
 *     valid only from a time still to come: the exceptions an eligibility filter must exclude.</li>
 * </ul>
 *
 * <p>Event {@code n} is a function of the seed and {@code n} alone ({@link #event(long)}), so a
 * known-item query can name an event's words without the archive at hand, and a background ingest
 * continues where the archive stopped. Queries are held out from the archive ({@link #query}).
 */
public final class ZipfCorpus {

    public static final int TURNS_PER_SESSION = 20;
    public static final int TOPICS = 50_000;
    public static final int ENTITIES = 10_000;
    public static final long GAP_SECONDS = 40;
    public static final Instant END = Instant.parse("2026-06-01T00:00:00Z");

    /** The four scopes, and the share of sessions each holds. */
    public static final List<Scope> SCOPES = List.of(new Scope("lin", "default"), new Scope("lin", "work"),
            new Scope("sam", "default"), new Scope("team", "notes"));
    private static final double[] SCOPE_SHARE = {0.50, 0.75, 0.90, 1.0};

    /** Invented English words after the list: enough that the tail never runs out at a million turns. */
    private static final int ENGLISH_TAIL = 300_000;

    private static final String[] SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘"
            + "于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严")
            .split("");
    private static final String[] SYLLABLES = {"ka", "lo", "mi", "ren", "sa", "to", "vi", "nel", "dor", "pa", "qui", "zan",
            "bel", "cor", "fi", "gan", "hul", "jo", "mar", "ny", "os", "pri", "ste", "tur", "ul", "wen", "xi", "yo"};

    /** The vocabularies, loaded once per JVM. */
    private static final class Vocabulary {
        static final Weighted CHINESE = chinese();
        static final Weighted ENGLISH = english();
    }

    /** Words with cumulative weights, most frequent first; drawn by binary search. */
    private record Weighted(String[] words, double[] cumulative) {

        int rank(SplittableRandom random) {
            double x = random.nextDouble() * cumulative[cumulative.length - 1];
            int i = Arrays.binarySearch(cumulative, x);
            return Math.min(words.length - 1, i >= 0 ? i : -i - 1);
        }

        /** A rank between {@code from} and {@code to}, log-uniformly (the middle band of a Zipf list). */
        int band(SplittableRandom random, int from, int to) {
            int hi = Math.min(to, words.length - 1);
            return (int) Math.exp(Math.log(from) + random.nextDouble() * (Math.log(hi) - Math.log(from)));
        }
    }

    /** A turn: its scope, role, text and the words it was made of (for known-item queries). */
    public record Turn(long n, Scope scope, Role role, String text, List<Word> words, String session, Instant at) {
    }

    /** A word drawn, and its rank in its vocabulary ({@link Integer#MAX_VALUE} for a name): the larger, the rarer. */
    public record Word(String text, int rank) {
    }

    /** One of the held-out queries a benchmark asks: a query, or a dialogue (newest turn last). */
    public record Query(Scope scope, String text, List<String> dialogue) {
    }

    /** The kinds of query: a turn's rare words; a topic; a long mixed text; a dialogue ending in a question. */
    public enum QueryKind { KNOWN_ITEM, TOPICAL, LONG, DIALOGUE }

    private final long seed;
    private final long size;

    /** The archive of {@code size} turns made from {@code seed}. */
    public ZipfCorpus(long seed, long size) {
        this.seed = seed;
        this.size = size;
    }

    public long size() {
        return size;
    }

    /** Turn {@code n} (0 is the oldest; {@code n >= size} continue it, as a background ingest does). */
    public Turn turn(long n) {
        long session = n / TURNS_PER_SESSION;
        SplittableRandom s = random("session", session);
        Scope scope = scopeOf(s.nextDouble());
        int topic = zipf(s, TOPICS, 1.0);
        SplittableRandom r = random("turn", n);
        List<Word> words = new ArrayList<>();
        String text = text(r, topic, scope, 6 + r.nextInt(40), words);
        Instant at = END.minus(Duration.ofSeconds(GAP_SECONDS * (size - 1 - n)));
        Role role = n % 2 == 0 ? Role.USER : Role.ASSISTANT;
        return new Turn(n, scope, role, text, words, "zipf-" + seed + "-" + session, at);
    }

    /** Turn {@code n} as an event submission, its ID {@link #eventId}. */
    public EventSubmission event(long n) {
        Turn t = turn(n);
        return new EventSubmission(eventId(seed, n), t.scope(), t.role(), t.text(), "bench", null, t.session(), t.at());
    }

    /** The event ID of turn {@code n} of the corpus of {@code seed}: {@code zipf-SEED-N}. */
    public static String eventId(long seed, long n) {
        return "zipf-" + seed + "-" + n;
    }

    /** Turn {@code n}'s memory: its text, with a validity that is superseded or not yet begun for a few. */
    public Derivation memory(EventSubmission e, long n) {
        SplittableRandom r = random("memory", n);
        MemoryDraft.Builder b = MemoryDraft.builder(e.id()).kind(Kind.FACT)
                .basis(e.role() == Role.USER ? Basis.USER_STATEMENT : Basis.ASSISTANT_EXPRESSION)
                .text(e.text()).quote(e.text());
        int exception = r.nextInt(400);
        if (exception < 10) {
            b.validAt(e.occurredAt()).invalidAt(e.occurredAt().plus(Duration.ofDays(1 + r.nextInt(60))));
        } else if (exception == 10) {
            b.validAt(END.plus(Duration.ofDays(3650 + r.nextInt(365))));
        }
        return new Derivation(e.scope(), b.build());
    }

    /** Events {@code from} (inclusive) to {@code to} (exclusive). */
    public List<EventSubmission> events(long from, long to) {
        List<EventSubmission> out = new ArrayList<>((int) (to - from));
        for (long n = from; n < to; n++) {
            out.add(event(n));
        }
        return out;
    }

    /**
     * The {@code i}th query of a kind, held out from the archive: a known item names two or three of
     * a turn's rarest words in a question; a topical query two of a recurring topic's words; a long
     * query is a new mixed text of 80 to 160 words; a dialogue is three new turns of a session's topic
     * and a known-item question about an earlier turn of it.
     */
    public Query query(QueryKind kind, int i) {
        SplittableRandom r = random("query-" + kind, i);
        switch (kind) {
            case KNOWN_ITEM -> {
                Turn t = turn(r.nextLong(size));
                return new Query(t.scope(), knownItem(t, r), List.of());
            }
            case TOPICAL -> {
                Turn t = turn(r.nextLong(size));
                int topic = zipf(random("session", t.n() / TURNS_PER_SESSION), TOPICS, 1.0);
                List<Word> words = topicWords(topic);
                boolean zh = r.nextBoolean();
                int n = zh ? 4 : 3;
                int first = r.nextInt(n);
                int second = (first + 1 + r.nextInt(n - 1)) % n; // two different words of the topic
                String a = words.get(first + (zh ? 0 : 4)).text();
                String b = words.get(second + (zh ? 0 : 4)).text();
                return new Query(t.scope(), zh ? "我们之前聊过" + a + "和" + b + "的事吗？"
                        : "What did we talk about regarding " + a + " and " + b + "?", List.of());
            }
            case LONG -> {
                Turn t = turn(r.nextLong(size));
                int topic = zipf(r, TOPICS, 1.0);
                return new Query(t.scope(), text(r, topic, t.scope(), 80 + r.nextInt(81), new ArrayList<>()), List.of());
            }
            case DIALOGUE -> {
                Turn t = turn(r.nextLong(size));
                int topic = zipf(random("session", t.n() / TURNS_PER_SESSION), TOPICS, 1.0);
                List<String> turns = new ArrayList<>();
                for (int k = 0; k < 3; k++) {
                    turns.add(text(r, topic, t.scope(), 6 + r.nextInt(20), new ArrayList<>()));
                }
                turns.add(knownItem(t, r));
                return new Query(t.scope(), String.join("\n", turns), List.copyOf(turns));
            }
            default -> throw new IllegalArgumentException("kind");
        }
    }

    /** A question naming two or three of the turn's rarest words (by the vocabularies' ranks). */
    private static String knownItem(Turn t, SplittableRandom r) {
        List<Word> rare = new ArrayList<>(new LinkedHashSet<>(t.words()));
        rare.sort(Comparator.comparingInt(Word::rank).reversed());
        List<String> picked = new ArrayList<>();
        for (Word w : rare.subList(0, Math.min(rare.size(), 2 + r.nextInt(2)))) {
            picked.add(w.text());
        }
        boolean zh = !picked.isEmpty() && ChineseTokens.isCjk(picked.get(0).charAt(0));
        return zh ? "我记得提过" + String.join("、", picked) + "，具体是什么来着？"
                : "Do you remember what I said about " + String.join(" and ", picked) + "?";
    }

    /** A text of {@code count} words in one of the three styles, the words it drew added to {@code words}. */
    private String text(SplittableRandom r, int topic, Scope scope, int count, List<Word> words) {
        int style = r.nextInt(20); // 0-8 Chinese, 9-15 English, 16-19 mixed
        List<Word> topicWords = topicWords(topic);
        StringBuilder sb = new StringBuilder();
        boolean lastEnglish = false;
        int sentence = 0;
        for (int k = 0; k < count; k++) {
            boolean english = style >= 9 && style <= 15 || style >= 16 && r.nextInt(3) == 0;
            Word w;
            double x = r.nextDouble();
            if (x < 0.125) {
                w = topicWords.get(english ? 4 + r.nextInt(3) : r.nextInt(4));
            } else if (x < 0.145) {
                w = new Word(entity(scope, zipf(r, ENTITIES, 1.1), english), Integer.MAX_VALUE);
            } else {
                Weighted v = english ? Vocabulary.ENGLISH : Vocabulary.CHINESE;
                int rank = v.rank(r);
                w = new Word(v.words()[rank], rank);
            }
            words.add(w);
            if (!sb.isEmpty() && (english || lastEnglish)) {
                sb.append(' ');
            }
            sb.append(w.text());
            lastEnglish = english;
            if (++sentence >= 5 + r.nextInt(8)) {
                sb.append(english ? "." : r.nextInt(3) == 0 ? "，" : "。");
                sentence = 0;
            }
        }
        return sb.toString().strip();
    }

    /** A topic's four Chinese and three English words, from the vocabularies' middle band. */
    private List<Word> topicWords(int topic) {
        SplittableRandom r = random("topic", topic);
        List<Word> w = new ArrayList<>(7);
        for (int i = 0; i < 7; i++) {
            Weighted v = i < 4 ? Vocabulary.CHINESE : Vocabulary.ENGLISH;
            int rank = i < 4 ? v.band(r, 800, 120_000) : v.band(r, 300, 40_000);
            w.add(new Word(v.words()[rank], rank));
        }
        return w;
    }

    /** Entity {@code i} of a scope: a Chinese name, or an English one. */
    private String entity(Scope scope, int i, boolean english) {
        SplittableRandom r = random("entity-" + scope, i);
        if (english) {
            String name = invented(r, 2 + r.nextInt(2));
            return Character.toUpperCase(name.charAt(0)) + name.substring(1);
        }
        String[] words = Vocabulary.CHINESE.words();
        return SURNAMES[r.nextInt(SURNAMES.length)] + words[Vocabulary.CHINESE.band(r, 200, 4_000)].substring(0, 1)
                + (r.nextBoolean() ? words[Vocabulary.CHINESE.band(r, 200, 4_000)].substring(0, 1) : "");
    }

    private static String invented(SplittableRandom r, int syllables) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < syllables; i++) {
            sb.append(SYLLABLES[r.nextInt(SYLLABLES.length)]);
        }
        return sb.toString();
    }

    private static Scope scopeOf(double x) {
        for (int i = 0; i < SCOPE_SHARE.length; i++) {
            if (x < SCOPE_SHARE[i]) {
                return SCOPES.get(i);
            }
        }
        return SCOPES.get(SCOPES.size() - 1);
    }

    /** A Zipf draw of rank 0..n-1 with exponent {@code s} (inverse of the continuous approximation). */
    private static int zipf(SplittableRandom r, int n, double s) {
        double u = r.nextDouble();
        double rank;
        if (Math.abs(s - 1.0) < 1e-9) {
            rank = Math.exp(u * Math.log(n + 1.0)) - 1;
        } else {
            double a = 1 - s;
            rank = Math.pow(u * (Math.pow(n + 1.0, a) - 1) + 1, 1 / a) - 1;
        }
        return (int) Math.min(n - 1, Math.max(0, rank));
    }

    private SplittableRandom random(String what, long n) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L ^ what.hashCode() * 0xC2B2AE3D27D4EB4FL ^ n * 0x165667B19E3779F9L);
    }

    private static Weighted chinese() {
        List<String> words = new ArrayList<>();
        List<Double> freq = new ArrayList<>();
        try (InputStream in = ZipfCorpus.class.getResourceAsStream("/dict.txt")) {
            if (in == null) {
                throw new IllegalStateException("jieba's dict.txt is not on the class path");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 2 && f[0].length() <= 4 && f[0].codePoints().allMatch(dev.jiyi.analysis.ChineseTokens::isCjk)) {
                    words.add(f[0]);
                    freq.add(Double.parseDouble(f[1]));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading jieba's dictionary", e);
        }
        return weighted(words, freq);
    }

    private static Weighted english() {
        List<String> words = new ArrayList<>();
        List<Double> freq = new ArrayList<>();
        try (InputStream in = ZipfCorpus.class.getResourceAsStream("english-frequencies.tsv")) {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                if (!line.startsWith("#") && !line.isBlank()) {
                    int tab = line.indexOf('\t');
                    words.add(line.substring(0, tab));
                    freq.add(Double.parseDouble(line.substring(tab + 1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading english-frequencies.tsv", e);
        }
        int listed = words.size();
        double last = freq.get(listed - 1);
        SplittableRandom r = new SplittableRandom(listed);
        for (int i = 1; i <= ENGLISH_TAIL; i++) {
            words.add(invented(r, 2 + r.nextInt(3)));
            freq.add(last * listed / (listed + i));
        }
        return weighted(words, freq);
    }

    private static Weighted weighted(List<String> words, List<Double> freq) {
        Integer[] order = new Integer[words.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(freq.get(b), freq.get(a)));
        String[] w = new String[order.length];
        double[] c = new double[order.length];
        double sum = 0;
        for (int i = 0; i < order.length; i++) {
            w[i] = words.get(order[i]);
            sum += freq.get(order[i]);
            c[i] = sum;
        }
        return new Weighted(w, c);
    }
}
