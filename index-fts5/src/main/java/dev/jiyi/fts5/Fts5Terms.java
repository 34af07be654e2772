package dev.jiyi.fts5;

import dev.jiyi.analysis.ChineseTokens;
import dev.jiyi.authority.Scope;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The terms the FTS5 tables hold and the MATCH expressions that search them: the shared analysis
 * terms (R1), each stored with its scope's key in front, so that a term of one scope is a different
 * FTS5 term from the same word in another (S1; each scope's document frequencies are FTS5's own,
 * R11); the scope token that counts each scope's rows; and queries searched literally (R2) without
 * stop words (R6) or scope-token look-alikes.
 */
final class Fts5Terms {

    /** The start of every scope token; no term of user text that starts so is stored or searched. */
    static final String SCOPE_PREFIX = "jiyiscope";

    /** Hex digits of a scope's key: 80 bits of SHA-256 of its persona and project. */
    private static final int KEY_LENGTH = 20;

    private Fts5Terms() {
    }

    /** The analysis terms of a text (R1) that FTS5 stores, in order: all but scope-token look-alikes. */
    static List<String> contentTerms(String text) {
        return withoutScopeTokens(ChineseTokens.terms(text));
    }

    /**
     * The terms FTS5 stores for a text in a scope: its content terms, split again where the 'ascii'
     * tokenizer splits ({@link ChineseTokens#storedPieces}), each behind the scope's key.
     */
    static Set<String> indexedTerms(Scope scope, String text) {
        String key = key(scope);
        Set<String> out = new HashSet<>();
        for (String term : contentTerms(text)) {
            for (String piece : ChineseTokens.storedPieces(term)) {
                out.add(key + piece);
            }
        }
        return out;
    }

    /** The {@code tokens} column of a text in a scope ({@link #tokens}). */
    static String contentTokens(Scope scope, String text) {
        return tokens(scope, contentTerms(text));
    }

    /**
     * Content terms as the {@code tokens} column holds them: each stored piece of each term behind
     * the scope's key, space-separated (a term's pieces next to each other, so a phrase of them
     * matches). The key is letters and digits of a fixed length and the pieces are what the tokenizer
     * keeps whole, so each piece is one FTS5 token, and no text of one scope can spell another
     * scope's term.
     */
    static String tokens(Scope scope, List<String> terms) {
        String key = key(scope);
        StringBuilder sb = new StringBuilder();
        for (String term : terms) {
            for (String piece : ChineseTokens.storedPieces(term)) {
                if (!sb.isEmpty()) {
                    sb.append(' ');
                }
                sb.append(key).append(piece);
            }
        }
        return sb.toString();
    }

    /** The scope's rows that have any of the (scoped, quoted) terms in their text. */
    static String match(String terms) {
        return "tokens : (" + terms + ")";
    }

    /**
     * The token that puts a row in its scope's count ({@code scope} column). Letters and digits only,
     * so the tokenizer keeps it whole; a hash, so scope IDs of any length and script fit.
     */
    static String scopeToken(Scope scope) {
        return SCOPE_PREFIX + key(scope);
    }

    /** The scope's key: the first 80 bits of SHA-256 of its persona and project, in lowercase hex. */
    static String key(Scope scope) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((scope.personaId() + "\u0000" + scope.projectId()).getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(KEY_LENGTH);
            for (int i = 0; i < KEY_LENGTH / 2; i++) {
                sb.append(Character.forDigit((digest[i] >> 4) & 0xF, 16)).append(Character.forDigit(digest[i] & 0xF, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /**
     * An FTS5 MATCH expression that searches the query's terms literally in the scope (R2): each
     * distinct term that is not a stop word (R6) becomes a double-quoted string of its scoped pieces,
     * joined with OR, so operators, column filters, prefixes and parentheses in the query are text,
     * never syntax. Returns null when the query has no searchable term.
     */
    static String literalQuery(Scope scope, String query) {
        List<String> terms = searchTerms(query);
        return terms.isEmpty() ? null : literal(scope, terms);
    }

    /** The query's distinct terms that are searched: not stop words (R6), not scope-token look-alikes. */
    static List<String> searchTerms(String query) {
        return withoutScopeTokens(ChineseTokens.queryTerms(query));
    }

    private static List<String> withoutScopeTokens(List<String> terms) {
        List<String> out = new ArrayList<>(terms.size());
        for (String term : terms) {
            if (!term.startsWith(SCOPE_PREFIX)) {
                out.add(term);
            }
        }
        return out;
    }

    /** The terms as double-quoted FTS5 strings of their scoped pieces ({@link #quoted}), OR'ed. */
    static String literal(Scope scope, List<String> terms) {
        String key = key(scope);
        List<String> quoted = new ArrayList<>(terms.size());
        for (String term : terms) {
            quoted.add(quoted(key, term));
        }
        return String.join(" OR ", quoted);
    }

    /**
     * A term of the query as the scope stores it, as one FTS5 string: its pieces, each behind the
     * scope's key, space-separated (a phrase where there are several). The pieces hold no quote (the
     * analysis splits at every ASCII character that is not a letter or digit), so the string needs no
     * escaping.
     */
    static String quoted(String key, String term) {
        StringBuilder sb = new StringBuilder().append('"');
        for (String piece : ChineseTokens.storedPieces(term)) {
            if (sb.length() > 1) {
                sb.append(' ');
            }
            sb.append(key).append(piece);
        }
        return sb.append('"').toString();
    }
}
