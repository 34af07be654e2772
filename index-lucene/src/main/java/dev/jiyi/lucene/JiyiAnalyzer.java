package dev.jiyi.lucene;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.analysis.Token;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A Lucene {@link Analyzer} over exactly the token stream of {@code analysis}: jieba index mode plus
 * CJK unigrams, normalized and stemmed by {@link ChineseTokens}, each term split into the pieces
 * FTS5 stores ({@link ChineseTokens#storedPieces}). FTS5 and Lucene therefore index identical terms
 * for the same text, at the same positions, and a comparison of the two measures the engines, not
 * two analyses.
 */
public final class JiyiAnalyzer extends Analyzer {

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        return new TokenStreamComponents(new JiyiTokenizer());
    }

    /** The pieces of a text as Lucene indexes them, in order: what FTS5 stores for the same text. */
    static List<String> pieces(String text) {
        List<String> out = new ArrayList<>();
        for (String term : ChineseTokens.terms(text)) {
            out.addAll(ChineseTokens.storedPieces(term));
        }
        return out;
    }

    /**
     * Reads the whole field (a memory or an event is at most a few hundred kilobytes), segments it
     * once, and hands out the pieces, one position each.
     */
    private static final class JiyiTokenizer extends Tokenizer {

        private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
        private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
        private final StringBuilder text = new StringBuilder();
        private final List<Piece> pieces = new ArrayList<>();
        private int next;

        private record Piece(String text, int start, int end) {
        }

        @Override
        public boolean incrementToken() {
            if (next >= pieces.size()) {
                return false;
            }
            clearAttributes();
            Piece p = pieces.get(next++);
            term.setEmpty().append(p.text());
            offset.setOffset(correctOffset(p.start()), correctOffset(p.end()));
            return true;
        }

        @Override
        public void reset() throws IOException {
            super.reset();
            text.setLength(0);
            char[] buffer = new char[4096];
            for (int n = input.read(buffer); n >= 0; n = input.read(buffer)) {
                text.append(buffer, 0, n);
            }
            pieces.clear();
            next = 0;
            // Offsets point into the normalized text; clamped to the input, they stay ordered.
            int length = text.length();
            for (Token token : ChineseTokens.tokenize(text.toString())) {
                for (String piece : ChineseTokens.storedPieces(token.text())) {
                    pieces.add(new Piece(piece, Math.min(token.start(), length), Math.min(token.end(), length)));
                }
            }
        }

        @Override
        public void end() throws IOException {
            super.end();
            int last = correctOffset(text.length());
            offset.setOffset(last, last);
        }
    }
}
