package dev.jiyi.lucene;

import dev.jiyi.authority.Authority;
import dev.jiyi.authority.Event;
import dev.jiyi.authority.InvalidInputException;
import dev.jiyi.authority.Memory;
import dev.jiyi.authority.Scope;
import dev.jiyi.authority.SeededRandom;
import dev.jiyi.fts5.Fts5Index;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import static dev.jiyi.lucene.Archive.DIARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * L1: FTS5 and Lucene (jiyi analysis) index identical terms for the same texts. Both indexes are
 * filled from one authority; FTS5's stored terms come from {@code fts5vocab} (its scope tokens,
 * {@code jiyiscope...}, are not text and are left out), Lucene's from the index files themselves
 * (the {@link TermsEnum} and positions of {@code memory_text} and {@code event_text}).
 */
class AnalysisParityTest {

    /** Chinese, English and mixed texts, with the cases that split terms: sub-words, stems, punctuation. */
    private static final List<String> TEXTS = List.of(
            "我在北京大学读书，昨天买了一本书。",
            "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
            "上周末我们去灵隐寺爬山，下雨了，只好去喝咖啡",
            "I moved to Shanghai last spring and started running marathons.",
            "We went to Lisbon, bought two knives and met the children's teachers; 我们 went 回家 early.",
            "The quick brown fox's jumps weren't over-engineered: e-mail me at foo.bar@example.com!",
            "周末 weekend 去 Lingyin 寺 hiking 🙏 with my co-workers (3 of them) at 9:30am",
            "用 Java 21 和 Lucene 10.5 写 BM25 检索，FTS5 的 secure-delete 模式",
            "ＡＩ助手说：「你好」！Ｆｕｌｌ－ｗｉｄｔｈ letters and ①②③ numbers",
            "C++/C# 与 node.js, v2.0-beta_3, naïve café résumé, Straße",
            "今天天气很好\t明天\n下雨\r\n后天 晴");

    @TempDir
    Path home;

    @Test
    @DisplayName("L1 R1 FTS5 and Lucene store identical terms at identical positions for Chinese, English, mixed and seeded random texts")
    void identicalTerms() throws IOException, SQLException {
        Random random = SeededRandom.create("AnalysisParityTest.identicalTerms");
        List<String> texts = new ArrayList<>(TEXTS);
        for (int i = 0; i < 120; i++) {
            String t = SeededRandom.mixedText(random, 60);
            if (!t.isBlank()) {
                texts.add(t);
            }
        }
        Map<Long, String> eventTexts = new TreeMap<>();
        Map<Long, String> memoryTexts = new TreeMap<>();
        try (Authority a = Authority.open(home.resolve("jiyi.db"), List.of(new Fts5Index()));
             LuceneIndex lucene = LuceneIndex.open(home.resolve("lucene"), LuceneOptions.defaults())) {
            for (int i = 0; i < texts.size(); i++) {
                Scope scope = i % 2 == 0 ? DIARY : Archive.WORK;
                Event e = Archive.say(a, scope, "ev-" + i, texts.get(i));
                eventTexts.put(e.sequence(), e.text());
                if (!texts.get(i).strip().isEmpty()) {
                    Memory m = a.addMemory(scope, Archive.fact(e.id(), texts.get(i).strip())
                            .subject(i % 3 == 0 ? "小明" : null).gist(i % 4 == 0 ? "摘要 gist " + i : null).build());
                    memoryTexts.put(m.rowId(), m.searchText());
                }
            }
            lucene.catchUp(a);

            Map<Long, List<String>> luceneEvents = luceneTerms(lucene, Documents.EVENT_TEXT);
            Map<Long, List<String>> luceneMemories = luceneTerms(lucene, Documents.MEMORY_TEXT);
            Map<Long, List<String>> ftsEvents = fts5Terms("events_fts");
            Map<Long, List<String>> ftsMemories = fts5Terms("memories_fts");

            assertThat(ftsEvents).as("precondition: FTS5 holds the events").hasSizeGreaterThan(eventTexts.size() - 20);
            assertThat(luceneEvents.keySet()).containsExactlyElementsOf(ftsEvents.keySet());
            for (long row : ftsEvents.keySet()) {
                assertThat(luceneEvents.get(row)).as("event %d: %s", row, eventTexts.get(row)).isEqualTo(ftsEvents.get(row));
            }
            assertThat(luceneMemories.keySet()).containsExactlyElementsOf(ftsMemories.keySet());
            for (long row : ftsMemories.keySet()) {
                assertThat(luceneMemories.get(row)).as("memory %d: %s", row, memoryTexts.get(row))
                        .isEqualTo(ftsMemories.get(row));
            }
            // The vocabularies as a whole, as a person would compare them.
            assertThat(vocabulary(luceneEvents)).isEqualTo(fts5Vocabulary("events_fts"));
            assertThat(vocabulary(luceneMemories)).isEqualTo(fts5Vocabulary("memories_fts"));
            assertThat(vocabulary(luceneEvents)).as("sub-words, unigrams and stems are there")
                    .contains("北京大学", "北京", "大学", "书", "寺", "shanghai", "move", "hike", "灵隐寺");
        }
    }

    /** Per document (by row), the terms of a field in position order, read from the index files. */
    private static Map<Long, List<String>> luceneTerms(LuceneIndex lucene, String field) throws IOException {
        Map<Long, TreeMap<Integer, String>> byRow = new TreeMap<>();
        try (FSDirectory dir = FSDirectory.open(lucene.directory().orElseThrow());
             DirectoryReader reader = DirectoryReader.open(dir)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                Terms terms = leaf.reader().terms(field);
                if (terms == null) {
                    continue;
                }
                SortedNumericDocValues[] rowValues = new SortedNumericDocValues[1];
                TermsEnum te = terms.iterator();
                PostingsEnum postings = null;
                for (BytesRef term = te.next(); term != null; term = te.next()) {
                    String scoped = term.utf8ToString();
                    String prefix = List.of(Documents.termPrefix(DIARY), Documents.termPrefix(Archive.WORK)).stream()
                            .filter(scoped::startsWith).findFirst().orElse(null);
                    assertThat(prefix).as("every text term starts with a scope: %s", scoped).isNotNull();
                    String text = scoped.substring(prefix.length());
                    postings = te.postings(postings, PostingsEnum.POSITIONS);
                    for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
                        rowValues[0] = leaf.reader().getSortedNumericDocValues(Documents.ROW);
                        assertThat(rowValues[0].advanceExact(doc)).isTrue();
                        long row = rowValues[0].nextValue();
                        TreeMap<Integer, String> positions = byRow.computeIfAbsent(row, r -> new TreeMap<>());
                        for (int i = 0; i < postings.freq(); i++) {
                            String before = positions.put(postings.nextPosition(), text);
                            assertThat(before).as("one term per position").isNull();
                        }
                    }
                }
            }
        }
        Map<Long, List<String>> out = new TreeMap<>();
        byRow.forEach((row, positions) -> out.put(row, new ArrayList<>(positions.values())));
        return out;
    }

    private Connection sql() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + home.resolve("jiyi.db"));
    }

    /** Per row, FTS5's stored terms in position order, without its scope token and without the scope key before each. */
    private Map<Long, List<String>> fts5Terms(String table) throws SQLException {
        Map<Long, List<String>> out = new TreeMap<>();
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp." + table + "_instances USING fts5vocab(main, " + table + ", instance)");
            try (ResultSet rs = s.executeQuery("SELECT term, doc FROM temp." + table + "_instances ORDER BY doc, offset")) {
                while (rs.next()) {
                    String term = rs.getString(1);
                    List<String> terms = out.computeIfAbsent(rs.getLong(2), r -> new ArrayList<>());
                    if (!term.startsWith("jiyiscope")) {
                        terms.add(unscoped(term));
                    }
                }
            }
        }
        out.values().removeIf(List::isEmpty); // a text without a searchable term: nothing in Lucene either
        return out;
    }

    /** An FTS5 text term without the scope's key it is stored behind (every one has one of the two). */
    private static String unscoped(String term) {
        String prefix = List.of(Fts5Index.termPrefix(DIARY), Fts5Index.termPrefix(Archive.WORK)).stream()
                .filter(term::startsWith).findFirst().orElse(null);
        assertThat(prefix).as("every FTS5 text term starts with a scope's key: %s", term).isNotNull();
        return term.substring(prefix.length());
    }

    private TreeSet<String> fts5Vocabulary(String table) throws SQLException {
        TreeSet<String> out = new TreeSet<>();
        try (Connection c = sql(); Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp." + table + "_rows USING fts5vocab(main, " + table + ", row)");
            try (ResultSet rs = s.executeQuery("SELECT term FROM temp." + table + "_rows")) {
                while (rs.next()) {
                    if (!rs.getString(1).startsWith("jiyiscope")) {
                        out.add(unscoped(rs.getString(1)));
                    }
                }
            }
        }
        return out;
    }

    private static TreeSet<String> vocabulary(Map<Long, List<String>> terms) {
        TreeSet<String> out = new TreeSet<>();
        terms.values().forEach(out::addAll);
        return out;
    }

    @Test
    @DisplayName("L1 bad input: an unknown lucene.analyzer or lucene.vectors value is an error naming the setting and the choices, never the value")
    void unknownSettings() {
        assertThat(Analysis.parse("jiyi")).isEqualTo(Analysis.JIYI);
        assertThat(Analysis.parse("smartcn")).isEqualTo(Analysis.SMARTCN);
        for (String bad : List.of("ik", "JIYI", "", " jiyi", "结巴")) {
            assertThatThrownBy(() -> Analysis.parse(bad)).isInstanceOf(InvalidInputException.class)
                    .hasMessageContaining("lucene.analyzer").hasMessageContaining("jiyi or smartcn")
                    .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo("lucene.analyzer"));
        }
        assertThatThrownBy(() -> Analysis.parse(null)).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("lucene.analyzer");
        assertThatThrownBy(() -> Analysis.parse("结巴分词")).hasMessageNotContaining("结巴");
        assertThat(LuceneOptions.VectorFormat.parse("int8")).isEqualTo(LuceneOptions.VectorFormat.INT8);
        assertThatThrownBy(() -> LuceneOptions.VectorFormat.parse("int4")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("lucene.vectors").hasMessageNotContaining("int4");
        assertThatThrownBy(() -> LuceneOptions.defaults().withKnnCandidates(0))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("lucene.knn_candidates");
    }
}
