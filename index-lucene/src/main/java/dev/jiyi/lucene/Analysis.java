package dev.jiyi.lucene;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.StopWords;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cn.smart.SmartChineseAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.util.Version;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Which analysis makes the Lucene index's terms ({@code lucene.analyzer}): jiyi's own token stream,
 * the same as FTS5's (the default), or Lucene's {@link SmartChineseAnalyzer}, so that the two can be
 * compared on the same scenarios. The choice is part of the index's version: switching rebuilds.
 */
public enum Analysis {

    /** jieba index mode plus CJK unigrams, exactly the terms FTS5 stores ({@link JiyiAnalyzer}). */
    JIYI,
    /** Lucene's hidden-Markov-model Chinese segmenter (words, no unigrams of longer words). */
    SMARTCN;

    /** The configuration value: {@code jiyi} or {@code smartcn}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code lucene.analyzer}; an unknown value names the setting and the choices. */
    public static Analysis parse(String value) {
        for (Analysis a : values()) {
            if (a.code().equals(value)) {
                return a;
            }
        }
        throw new dev.jiyi.authority.InvalidInputException("lucene.analyzer", "must be jiyi or smartcn");
    }

    /** A new analyzer for indexing and searching (Lucene analyzers are thread-safe, reusable). */
    Analyzer analyzer() {
        return this == JIYI ? new JiyiAnalyzer() : new SmartChineseAnalyzer();
    }

    /** What the terms depend on; a change rebuilds the index. */
    String version() {
        return this == JIYI ? "jiyi/" + ChineseTokens.version() : "smartcn/" + Version.LATEST;
    }

    /**
     * The query's searchable terms, each a list of pieces (a phrase when more than one), distinct,
     * in order of first appearance. Stop words are dropped as FTS5 drops them (R6), so a query of
     * only common words proposes nothing; query syntax is never interpreted (R2).
     */
    List<List<String>> queryPhrases(String query, Analyzer analyzer) {
        if (this == JIYI) {
            return ChineseTokens.queryPieces(query);
        }
        LinkedHashSet<List<String>> out = new LinkedHashSet<>();
        try (TokenStream ts = analyzer.tokenStream(Documents.MEMORY_TEXT, query)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            OffsetAttribute offset = ts.addAttribute(OffsetAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                String t = term.toString();
                // smartcn stems English ("okay" is "okai"): the surface word decides, as in jiyi's analysis.
                String surface = ChineseTokens.normalize(query.substring(
                        Math.min(offset.startOffset(), query.length()), Math.min(offset.endOffset(), query.length())));
                if (!StopWords.contains(t) && !StopWords.contains(surface)) {
                    out.add(List.of(t));
                }
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException("analyzing a query", e);
        }
        return new ArrayList<>(out);
    }
}
